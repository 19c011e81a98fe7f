// Phone numbers as GoTrue takes and keeps them: E.164 digits, stored without the "+". The one
// parser of the service: sign-in and sign-up by phone, phone change, /verify, /resend and the admin
// API all go through it, so a number is written and looked up in one form.
import { AuthError } from '../errors.ts';
import { normalizeDigits } from './digits.ts';

const E164 = /^[1-9]\d{1,14}$/;

/**
 * GoTrue's validatePhone: drops a leading "+" and spaces, then E.164 digits (1–15, no leading 0).
 * Beyond GoTrue: Arabic-Indic and Persian digits, dashes, dots and parentheses (core/digits.ts; the
 * request schemas have already applied it, callers outside a request get it here).
 */
export function parsePhone(raw: string): string {
  const phone = normalizeDigits(raw, 'phone').replace(/^\+/, '');
  if (!E164.test(phone))
    throw new AuthError('validation_failed', 'Invalid phone number format (E.164 required)');
  return phone;
}

/** Whether digits (already without "+" and spaces) are an E.164 number. */
export function isValidPhone(digits: string): boolean {
  return E164.test(digits);
}
