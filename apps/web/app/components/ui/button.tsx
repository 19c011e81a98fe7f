import { cva, type VariantProps } from 'class-variance-authority';
import type { ComponentProps } from 'react';
import { cn } from '~/lib/utils.ts';

export const buttonVariants = cva(
  'inline-flex items-center justify-center gap-2 rounded-full font-semibold whitespace-nowrap transition-colors duration-200 disabled:pointer-events-none disabled:opacity-60 [&_svg]:size-4 [&_svg]:shrink-0',
  {
    variants: {
      variant: {
        primary: 'bg-saffron-400 text-oasis-950 hover:bg-saffron-300',
        solid: 'bg-oasis-700 text-white hover:bg-oasis-800',
        outline: 'border border-current/40 text-current hover:bg-current/10',
        ghost: 'text-current hover:bg-current/10',
        link: 'rounded-sm px-0 text-oasis-700 underline-offset-4 hover:underline',
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
 * shadcn/ui's button: a cva table, `cn()` merging the caller's classes last, `data-slot`. Two
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
      className={cn(buttonVariants({ variant, size, className }))}
      {...props}
    />
  );
}
