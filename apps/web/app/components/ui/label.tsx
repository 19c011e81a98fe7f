import type { ComponentProps } from 'react';
import { cn } from '~/lib/utils.ts';

export function Label({ className, htmlFor, ...props }: ComponentProps<'label'> & { htmlFor: string }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: htmlFor is required by the props type.
    <label
      data-slot="label"
      htmlFor={htmlFor}
      className={cn('block text-sm font-semibold text-ink', className)}
      {...props}
    />
  );
}
