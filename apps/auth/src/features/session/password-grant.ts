import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { isValidEmail, normalizeEmail } from '../../core/email.ts';
import { passwordVerificationAttempt } from '../../core/hooks/verification-hooks.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession } from '../../core/issue-session.ts';
import { passwordPolicyOf, passwordProblems } from '../../core/password-policy.ts';
import { isValidPhone } from '../../core/phone.ts';
import { clearBackoff, enforceSigninLimits } from '../../core/rate-limit.ts';
import { newRefreshToken } from '../../core/refresh-token.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../crypto/passwords.ts';
import { sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import { deleteUserSessions, startPasswordSession } from '../../db/sessions.repo.ts';
import { findUserByPhone } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

/**
 * POST /token?grant_type=password. Unknown email and wrong password get the same answer after the
 * same work (a dummy argon2 verify); "Email not confirmed" and "banned" only after a correct password.
 */
export async function passwordGrant(
  deps: Deps,
  input: { email?: string | undefined; password?: string | undefined; phone?: string | undefined },
  meta: RequestMeta,
): Promise<Session> {
  const byPhone = input.phone !== undefined && input.email === undefined;
  if (byPhone && !deps.config.phone.enabled)
    throw new AuthError('phone_provider_disabled', 'Phone logins are disabled');
  const login = byPhone ? input.phone : input.email;
  if (typeof login !== 'string' || typeof input.password !== 'string' || input.password === '')
    throw new AuthError('invalid_credentials');
  // The account's key in the limits: the lower-cased email, or the number as "+digits" (GoTrue
  // drops the "+" and spaces; a malformed number is looked up nowhere and fails like a wrong one).
  const phoneDigits = byPhone ? login.replace(/^\+/, '').replaceAll(' ', '') : undefined;
  const account = phoneDigits !== undefined ? `+${phoneDigits}` : normalizeEmail(login);
  const lookUp = phoneDigits !== undefined ? isValidPhone(phoneDigits) : isValidEmail(account);
  // Passwords beyond the maximum can never match (we never store them): refused without hashing a huge
  // input, after counting against the window limits but without reserving a back-off attempt.
  const oversized = input.password.length > deps.config.PASSWORD_MAX_LENGTH * 2;
  // Window limits, the back-off reservation and the account look-up in one statement: the attempt
  // counts as a failure until the password checks out (atomic under concurrency, see rate-limit.ts).
  // The account is read in the same statement (an invalid address is never looked up); a phone
  // account is read right after, by its number.
  const gate = await enforceSigninLimits(deps, account, meta.ip, {
    reserve: !oversized,
    lookUp: !oversized && lookUp && phoneDigits === undefined,
  });
  const { backoffKey, knownKey } = gate;
  if (oversized) throw new AuthError('invalid_credentials');
  const user = phoneDigits !== undefined && lookUp ? await findUserByPhone(deps.db, phoneDigits) : gate.user;

  if (!user?.encryptedPassword) {
    await burnPasswordCheck(input.password);
    // A failed attempt on an unknown account is logged too (ASVS 16.3.1) — and costs the same write.
    await audit(deps.db, 'login_failed', user?.id ?? null, meta.ip, {}).catch(() => {});
    throw new AuthError('invalid_credentials');
  }
  const result = await verifyPassword(user.encryptedPassword, input.password);
  // GoTrue's password_verification_attempt hook: told of the outcome, it may refuse even a right
  // password (and sign the user out everywhere).
  const hook = await passwordVerificationAttempt(deps, { userId: user.id, valid: result.ok, ip: meta.ip });
  if (hook?.reject) {
    if (hook.logoutUser) await deleteUserSessions(deps.db, user.id);
    await audit(deps.db, 'login_failed', user.id, meta.ip, { reason: 'hook_rejected' }).catch(() => {});
    throw new AuthError('invalid_credentials', hook.message);
  }
  if (!result.ok) {
    await audit(deps.db, 'login_failed', user.id, meta.ip, {}).catch(() => {});
    throw new AuthError('invalid_credentials');
  }
  const now = deps.clock();
  const refusal =
    user.bannedUntil && user.bannedUntil > now
      ? 'user_banned'
      : byPhone
        ? user.phoneConfirmedAt
          ? undefined
          : 'phone_not_confirmed'
        : !user.emailConfirmedAt
          ? 'email_not_confirmed'
          : undefined;
  if (refusal) {
    // The password was right, so this was no guess: it must not count toward the back-off (an
    // unconfirmed user retrying would end up with 429s), and the refusal is audited like a failure.
    if (backoffKey) await clearBackoff(deps.db, backoffKey).catch(() => {});
    await audit(deps.db, 'login_failed', user.id, meta.ip, { reason: refusal }).catch(() => {});
    throw new AuthError(refusal);
  }

  const newHash = result.needsRehash ? await hashPassword(input.password) : undefined;
  // One statement (atomic): last sign-in stamp (+ rehash), session, refresh token, audit row, back-off reset.
  const sessionId = randomUUID();
  const refreshToken = newRefreshToken(sessionId);
  const {
    user: updated,
    session,
    identities,
    factors,
  } = await startPasswordSession(deps.db, {
    userId: user.id,
    sessionId,
    now,
    newPasswordHash: newHash,
    amr: [{ method: 'password', timestamp: Math.floor(now.getTime() / 1000) }],
    ip: meta.ip,
    userAgent: meta.userAgent,
    tokenHash: sha256(refreshToken),
    backoffKey,
    knownKey,
  });
  const response = await issueSession(deps, {
    user: updated,
    session,
    refreshToken,
    relations: { identities, factors },
    hook: { ip: meta.ip },
  });
  const weak = passwordProblems(
    input.password,
    passwordPolicyOf(deps.config),
    byPhone ? {} : { email: account },
  );
  response.weak_password =
    weak.reasons.length > 0 ? { message: weak.messages.join(' '), reasons: weak.reasons } : null;
  return response;
}
