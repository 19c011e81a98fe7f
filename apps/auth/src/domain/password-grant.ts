import { burnPasswordCheck, hashPassword, verifyPassword } from '../crypto/passwords.ts';
import type { Deps, RequestMeta } from '../deps.ts';
import { AuthError } from '../errors.ts';
import { audit } from '../repositories/audit.ts';
import { findUserByEmail, loadUserRelations, updateUser } from '../repositories/users.ts';
import { isValidEmail, normalizeEmail } from './email.ts';
import { passwordProblems } from './password-policy.ts';
import { clearBackoff, enforceRateLimits, ipBucket, reserveSigninAttempt } from './rate-limit.ts';
import { type SessionResponse, sessionResponse, startSession } from './session-tokens.ts';
import { passwordChecks, policyOf } from './signup.ts';
import { userJson } from './user-json.ts';

/**
 * POST /token?grant_type=password. Unknown email and wrong password get the same answer after the
 * same work (a dummy argon2 verify); "Email not confirmed" and "banned" only after a correct password.
 */
export async function passwordGrant(
  deps: Deps,
  input: { email?: string | undefined; password?: string | undefined; phone?: string | undefined },
  meta: RequestMeta,
): Promise<SessionResponse> {
  if (input.phone !== undefined && input.email === undefined) throw new AuthError('phone_provider_disabled');
  if (typeof input.email !== 'string' || typeof input.password !== 'string' || input.password === '')
    throw new AuthError('invalid_credentials');
  const email = normalizeEmail(input.email);
  const rl = deps.config.rateLimits;
  await enforceRateLimits(
    deps,
    [
      { key: `signin:ip:${ipBucket(meta.ip)}`, limit: rl.signinPerIp },
      { key: `signin:acct:${email}`, limit: rl.signinPerAccount },
    ],
    rl.window,
  );
  // Passwords beyond the maximum can never match (we never store them); refuse without hashing a huge input.
  if (input.password.length > deps.config.PASSWORD_MAX_LENGTH * 2) throw new AuthError('invalid_credentials');
  // Counted as a failure until the password checks out (atomic under concurrency, see rate-limit.ts).
  const backoffKey = await reserveSigninAttempt(deps, email, meta.ip);

  const user = isValidEmail(email) ? await findUserByEmail(deps.db, email) : undefined;
  if (!user?.encryptedPassword) {
    await burnPasswordCheck(input.password);
    // A failed attempt on an unknown account is logged too (ASVS 16.3.1) — and costs the same write.
    await audit(deps.db, 'login_failed', user?.id ?? null, meta.ip, {}).catch(() => {});
    throw new AuthError('invalid_credentials');
  }
  const result = await verifyPassword(user.encryptedPassword, input.password);
  if (!result.ok) {
    await audit(deps.db, 'login_failed', user.id, meta.ip, {}).catch(() => {});
    throw new AuthError('invalid_credentials');
  }
  const now = deps.clock();
  if (user.bannedUntil && user.bannedUntil > now) throw new AuthError('user_banned');
  if (!user.emailConfirmedAt) throw new AuthError('email_not_confirmed');

  const newHash = result.needsRehash ? await hashPassword(input.password) : undefined;
  const { updated, session, refreshToken } = await deps.db.transaction(async (tx) => {
    const updated = await updateUser(tx, user.id, {
      lastSignInAt: now,
      ...(newHash ? { encryptedPassword: newHash } : {}),
    });
    const started = await startSession(deps, tx, updated, 'password', meta);
    await audit(tx, 'login', user.id, meta.ip, { provider: 'email' });
    if (backoffKey) await clearBackoff(tx, backoffKey);
    return { updated, ...started };
  });
  const rel = await loadUserRelations(deps.db, user.id);
  const response = await sessionResponse(
    deps,
    updated,
    session,
    refreshToken,
    userJson(updated, rel.identities, rel.factors),
  );
  const weak = passwordProblems(input.password, policyOf(deps), passwordChecks, { email });
  response.weak_password =
    weak.reasons.length > 0 ? { message: weak.messages.join(' '), reasons: weak.reasons } : null;
  return response;
}
