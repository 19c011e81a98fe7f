import type { Deps, RequestMeta } from '../../core/deps.ts';
import { issueEmailToken, otpHash } from '../../core/email-tokens.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import { codeAttemptLimit, emailQuota, enforceOtpIpLimit, enforceRateLimits } from '../../core/rate-limit.ts';
import type { DbOrTx } from '../../db/client.ts';
import { consumeByOtp } from '../../db/one-time-tokens.repo.ts';
import type { SessionRow } from '../../db/sessions.repo.ts';
import { type UserRow, updateUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

/** GoTrue's rule: a session this old must prove it is the account's owner again to change the password. */
const FRESH_SESSION_MS = 24 * 3600 * 1000;

/** GET /reauthenticate: mails the signed-in user a 6-digit nonce for `PUT /user {password, nonce}`. */
export async function requestReauthentication(deps: Deps, user: UserRow, meta: RequestMeta): Promise<void> {
  const email = user.email;
  // GoTrue's words (its phone users get an SMS; here reauthentication codes go by mail only).
  if (!email)
    throw new AuthError(
      'validation_failed',
      'Reauthentication requires the user to have an email or a phone number',
    );
  await enforceOtpIpLimit(deps, meta.ip);
  await emailQuota(deps, email);
  const now = deps.clock();
  await deps.db.transaction(async (tx) => {
    await updateUser(tx, user.id, { reauthenticationSentAt: now, updatedAt: now });
    await issueEmailToken(deps, tx, {
      userId: user.id,
      type: 'reauthentication',
      to: email,
      redirectTo: deps.config.SITE_URL,
      codeOnly: true,
      // No page to go by (GET, no redirect_to): the language remembered on the user.
      locale: mailLocaleFor(undefined, deps.config.SITE_URL, user.userMetadata),
      data: user.userMetadata,
    });
  });
  deps.mail.kick();
}

/** Whether this password change must carry a reauthentication nonce. */
export function passwordChangeNeedsNonce(deps: Deps, session: SessionRow): boolean {
  return (
    deps.config.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION &&
    deps.clock().getTime() - session.createdAt.getTime() > FRESH_SESSION_MS
  );
}

/** Refuses early (before hashing) a change that needs a nonce and has none; counts nonce guesses. */
export async function checkNonceGiven(deps: Deps, user: UserRow, nonce: string | undefined): Promise<void> {
  if (!nonce) throw new AuthError('reauthentication_needed');
  // A 6-digit nonce can be guessed like an email code: the same per-address hourly budget bounds it.
  await enforceRateLimits(deps, [codeAttemptLimit(deps, user.email ?? '')], deps.config.rateLimits.window);
}

/** Spends the nonce inside the password change's transaction, so a failed change leaves it unspent. */
export async function consumeNonce(deps: Deps, tx: DbOrTx, user: UserRow, nonce: string): Promise<void> {
  const email = user.email ?? '';
  const hashes = new Map([['reauthentication', otpHash(deps, 'reauthentication', email, nonce)] as const]);
  if (!/^\d{6,10}$/.test(nonce) || !(await consumeByOtp(tx, email, hashes, deps.clock())))
    throw new AuthError('reauthentication_not_valid');
}
