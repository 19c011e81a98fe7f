// `cn()` (lib/utils.ts) joins class names without resolving Tailwind conflicts, so no element may get
// two classes for one property. tailwind-merge (a development dependency only: it no longer ships)
// says whether a class list has such a pair: it drops the earlier one.
import { twMerge } from 'tailwind-merge';
import { describe, expect, it } from 'vitest';
import { buttonVariants } from '~/components/ui/button.tsx';

const conflictFree = (classes: string) => expect(twMerge(classes), classes).toBe(classes);

describe('button classes', () => {
  it('every variant in every size has no two classes for one property', () => {
    for (const variant of ['primary', 'solid', 'outline', 'ghost', 'link'] as const)
      for (const size of ['sm', 'md', 'lg', 'icon'] as const) conflictFree(buttonVariants({ variant, size }));
  });

  it("the callers' own classes add to their button's without overriding any", () => {
    // Each `<Button className>` and `buttonVariants(…)` + classes of the site.
    const used = [
      { variant: 'outline', size: 'sm', className: 'text-white' }, // sign out, Add a passkey
      { variant: 'ghost', size: 'icon', className: 'group -ms-2 text-white lg:hidden' }, // menu toggle
      { variant: 'ghost', size: 'sm', className: 'text-white' }, // nav sign in
      { variant: 'ghost', size: 'sm', className: 'text-oasis-50' }, // auth card: back home
      { variant: 'outline', size: 'lg', className: 'text-white' }, // hero
      { variant: 'outline', size: 'lg', className: 'mt-5 w-full text-oasis-800' }, // passkey sign-in
      { variant: 'outline', size: 'md', className: 'text-danger' }, // delete my account
      { variant: 'solid', size: 'lg', className: 'w-full' }, // form submits
      { variant: 'solid', size: 'lg', className: 'mt-8' }, // 404: home
    ] as const;
    for (const props of used) conflictFree(buttonVariants(props));
  });
});
