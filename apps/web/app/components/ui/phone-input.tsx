import type { ComponentProps } from 'react';
import { Input } from './input.tsx';

/** Room for a pasted international number with its spaces, dashes and marks (the service takes 50). */
export const PHONE_INPUT_MAX = 40;

/**
 * A phone number field: the phone keypad (`inputmode="tel"`), the browser's saved number
 * (`autocomplete="tel"`), and the number written left to right inside an Arabic page (`dir="ltr"`:
 * "+966 50…" keeps its "+" in front). What is typed is made E.164 by `toE164` (lib/phone-number.ts),
 * which the form loads when it needs it, so the field itself costs a page nothing.
 */
export function PhoneInput(props: Omit<ComponentProps<'input'>, 'type' | 'inputMode' | 'dir'>) {
  return (
    <Input
      type="tel"
      inputMode="tel"
      autoComplete="tel"
      dir="ltr"
      maxLength={PHONE_INPUT_MAX}
      spellCheck={false}
      {...props}
    />
  );
}
