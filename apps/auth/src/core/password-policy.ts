import { AuthError } from '../errors.ts';
import { isCommonPassword, resemblesIdentity } from './common-passwords.ts';

/**
 * `rejectCommon` (on in the service, see policyOf) refuses the bundled common-password list, the
 * account's own email and the brand name, with GoTrue's `pwned` reason.
 */
export type PasswordPolicy = { minLength: number; maxLength: number; rejectCommon?: boolean };

/** Who the password is for, so it can be compared with the account's own identifiers. */
export type PasswordContext = { email?: string | undefined };

/** Extra checks plug in here; each returns a reason or undefined. */
export type PasswordCheck = (
  password: string,
  context: PasswordContext,
) => { reason: string; message: string } | undefined;

// GoTrue's text for its `pwned` reason, so clients that show the server's message stay consistent.
export const PWNED_MESSAGE = 'Password is known to be weak and easy to guess, please choose a different one.';

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
  extraChecks: PasswordCheck[] = [],
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
  for (const check of extraChecks) {
    const problem = check(password, context);
    if (problem) {
      reasons.push(problem.reason);
      messages.push(problem.message);
    }
  }
  return { reasons, messages };
}

/** Throws 422 weak_password (GoTrue's shape) or 400 for an over-long password. */
export function assertPasswordAcceptable(
  password: string,
  policy: PasswordPolicy,
  extraChecks: PasswordCheck[] = [],
  context: PasswordContext = {},
) {
  if (codePointLength(password) > policy.maxLength)
    throw new AuthError('validation_failed', `Password cannot be longer than ${policy.maxLength} characters`);
  const { reasons, messages } = passwordProblems(password, policy, extraChecks, context);
  if (reasons.length > 0)
    throw new AuthError('weak_password', messages.join(' '), { extra: { weak_password: { reasons } } });
}
