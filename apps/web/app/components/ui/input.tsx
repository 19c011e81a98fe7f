import type { ComponentProps } from 'react';
import { cn } from '~/lib/utils.ts';

export function Input({ className, ...props }: ComponentProps<'input'>) {
  return (
    <input
      data-slot="input"
      className={cn(
        'block min-h-12 w-full rounded-xl border border-sand-200 bg-white px-4 text-base text-ink placeholder:text-muted/70 focus-visible:border-oasis-600 disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-danger',
        className,
      )}
      {...props}
    />
  );
}
