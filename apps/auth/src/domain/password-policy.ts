import { AuthError } from '../errors.ts';

export type PasswordPolicy = { minLength: number; maxLength: number };

/** Extra checks (e.g. a common-password list) plug in here; each returns a reason or undefined. */
export type PasswordCheck = (password: string) => { reason: string; message: string } | undefined;

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
): { reasons: string[]; messages: string[] } {
  const reasons: string[] = [];
  const messages: string[] = [];
  const length = codePointLength(password);
  if (length < policy.minLength) {
    reasons.push('length');
    messages.push(`Password should be at least ${policy.minLength} characters.`);
  }
  for (const check of extraChecks) {
    const problem = check(password);
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
) {
  if (codePointLength(password) > policy.maxLength)
    throw new AuthError('validation_failed', `Password cannot be longer than ${policy.maxLength} characters`);
  const { reasons, messages } = passwordProblems(password, policy, extraChecks);
  if (reasons.length > 0)
    throw new AuthError('weak_password', messages.join(' '), { extra: { weak_password: { reasons } } });
}
