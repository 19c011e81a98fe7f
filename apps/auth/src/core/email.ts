import { AuthError } from '../errors.ts';

// ASCII-only, like GoTrue's checkmail: it sidesteps Unicode look-alike and normalisation duplicates
// (a mixed policy would create two accounts for one visible address).
const EMAIL_RE =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** Lower-cases with the locale-independent mapping (never toLocaleLowerCase: Turkish İ would differ). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  if (email.length > 255) return false;
  const [local] = email.split('@');
  if (!local || local.length > 64 || local.startsWith('.') || local.endsWith('.') || local.includes('..'))
    return false;
  return EMAIL_RE.test(email);
}

/** Normalises and validates, throwing GoTrue's validation error. */
export function parseEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (email === '') throw new AuthError('validation_failed', 'An email address is required');
  if (!isValidEmail(email))
    throw new AuthError('validation_failed', 'Unable to validate email address: invalid format');
  return email;
}
