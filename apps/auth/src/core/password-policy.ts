import type { Config } from '../config.ts';
import { AuthError } from '../errors.ts';
import { isCommonPassword, resemblesIdentity } from './common-passwords.ts';

/**
 * `rejectCommon` (PASSWORD_REJECT_COMMON, on by default) refuses the bundled common-password list, the
 * account's own email and the brand name, with GoTrue's `pwned` reason.
 */
export type PasswordPolicy = { minLength: number; maxLength: number; rejectCommon?: boolean };

/** Who the password is for, so it can be compared with the account's own identifiers. */
export type PasswordContext = { email?: string | undefined };

// GoTrue's text for its `pwned` reason, so clients that show the server's message stay consistent.
export const PWNED_MESSAGE = 'Password is known to be weak and easy to guess, please choose a different one.';

/** The policy from the settings; sign-up, password change and password sign-in all use it. */
export function passwordPolicyOf(config: Config): PasswordPolicy {
  return {
    minLength: config.PASSWORD_MIN_LENGTH,
    maxLength: config.PASSWORD_MAX_LENGTH,
    rejectCommon: config.PASSWORD_REJECT_COMMON,
  };
}

/** Length in Unicode code points, as NIST asks (an emoji is one character, not two UTF-16 units). */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Returns the weak-password reasons for a password (empty when it passes). Never truncates: a
 * password over the maximum is refused, not shortened.
 */
export function passwordProblems(
  password: string,
  policy: PasswordPolicy,
  context: PasswordContext = {},
): { reasons: string[]; messages: string[] } {
  const reasons: string[] = [];
  const messages: string[] = [];
  const length = codePointLength(password);
  if (length < policy.minLength) {
    reasons.push('length');
    messages.push(`Password should be at least ${policy.minLength} characters.`);
  }
  if (policy.rejectCommon && (isCommonPassword(password) || resemblesIdentity(password, context.email))) {
    reasons.push('pwned');
    messages.push(PWNED_MESSAGE);
  }
  return { reasons, messages };
}

/** Throws 422 weak_password (GoTrue's shape) or 400 for an over-long password. */
export function assertPasswordAcceptable(
  password: string,
  policy: PasswordPolicy,
  context: PasswordContext = {},
) {
  if (codePointLength(password) > policy.maxLength)
    throw new AuthError('validation_failed', `Password cannot be longer than ${policy.maxLength} characters`);
  const { reasons, messages } = passwordProblems(password, policy, context);
  if (reasons.length > 0)
    throw new AuthError('weak_password', messages.join(' '), { extra: { weak_password: { reasons } } });
}
