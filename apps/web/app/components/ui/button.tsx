import { cva, type VariantProps } from 'class-variance-authority';
import type { ComponentProps } from 'react';

// No two classes of one button may set the same property: `cn()` joins class names without resolving
// conflicts (lib/utils.ts), so these variants are conflict-free by construction. Outline and ghost buttons take
// the text colour they inherit (buttons and links inherit it in Tailwind's preflight; a caller may add
// its own, e.g. `text-white`), each variant has its own corner radius, and the link variant's padding
// is its size's (as it was when tailwind-merge let the size's `px-*` win over the link's `px-0`).
// test/class-names.test.ts checks every variant and size against tailwind-merge.
export const buttonVariants = cva(
  'inline-flex items-center justify-center gap-2 font-semibold whitespace-nowrap transition-colors duration-200 disabled:pointer-events-none disabled:opacity-60 [&_svg]:size-4 [&_svg]:shrink-0',
  {
    variants: {
      variant: {
        primary: 'rounded-full bg-saffron-400 text-oasis-950 hover:bg-saffron-300',
        solid: 'rounded-full bg-oasis-700 text-white hover:bg-oasis-800',
        outline: 'rounded-full border border-current/40 hover:bg-current/10',
        ghost: 'rounded-full hover:bg-current/10',
        link: 'rounded-sm text-oasis-700 underline-offset-4 hover:underline',
      },
      size: {
        sm: 'min-h-10 px-4 text-sm',
        md: 'min-h-11 px-5 text-sm',
        lg: 'min-h-12 px-7 text-base',
        icon: 'size-11',
      },
    },
    defaultVariants: { variant: 'solid', size: 'md' },
  },
);

/**
 * shadcn/ui's button: a cva table, the caller's classes last, `data-slot`. Two
 * differences, both deliberate: no `asChild` (links take `buttonVariants()` on a plain <a>, so no Slot
 * dependency ships), and `type` defaults to "button" so a button inside a form never submits it by
 * accident (the HTML default is "submit").
 */
export function Button({
  className,
  variant,
  size,
  type = 'button',
  ...props
}: ComponentProps<'button'> & VariantProps<typeof buttonVariants>) {
  return (
    <button
      data-slot="button"
      type={type}
      className={buttonVariants({ variant, size, className })}
      {...props}
    />
  );
}
