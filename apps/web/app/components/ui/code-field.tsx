import { CODE_PATTERN } from '~/lib/digits.ts';
import { Input } from './input.tsx';
import { Label } from './label.tsx';

/**
 * A six-digit code field (authenticator app, texted or emailed code): numeric keyboard, the
 * browser's one-time-code autofill, left to right on Arabic pages. Arabic-Indic digits typed into it
 * are accepted by the reader (`sixDigitCode` in lib/digits.ts), so the pattern is advisory.
 */
export function CodeField({
  id,
  label,
  disabled,
  invalid,
  describedBy,
  name = 'code',
}: {
  id: string;
  label: string;
  disabled: boolean;
  invalid?: boolean;
  describedBy?: string | undefined;
  name?: string;
}) {
  return (
    <div className="space-y-2" data-slot="code-field">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        name={name}
        dir="ltr"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern={CODE_PATTERN}
        maxLength={6}
        required
        disabled={disabled}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
      />
    </div>
  );
}
