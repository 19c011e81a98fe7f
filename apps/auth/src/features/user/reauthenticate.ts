import type { Deps, RequestMeta } from '../../core/deps.ts';
import { issueEmailToken, otpHash } from '../../core/email-tokens.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import {
  codeAttemptLimit,
  emailQuota,
  enforceOtpIpLimit,
  enforceRateLimits,
  phoneCodeAddress,
} from '../../core/rate-limit.ts';
import { userJson } from '../../core/user-json.ts';
import { safeEqual } from '../../crypto/tokens.ts';
import type { DbOrTx } from '../../db/client.ts';
import { consumeByOtp } from '../../db/one-time-tokens.repo.ts';
import type { SessionRow } from '../../db/sessions.repo.ts';
import { type UserRow, updateUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { enforcePhoneFloor, sendPhoneCode } from '../otp/index.ts';

/** GoTrue's rule: a session this old must prove it is the account's owner again to change the password. */
const FRESH_SESSION_MS = 24 * 3600 * 1000;

/**
 * Where a user's reauthentication code goes, in GoTrue's order: the email when the account has one,
 * else the phone by SMS. The nonce is stored and checked against that same address.
 */
export type ReauthenticationChannel = { kind: 'email'; to: string } | { kind: 'sms'; to: string };

export function reauthenticationChannel(user: UserRow): ReauthenticationChannel | undefined {
  if (user.email) return { kind: 'email', to: user.email };
  if (user.phone) return { kind: 'sms', to: user.phone };
  return undefined;
}

/**
 * GET /reauthenticate: sends the signed-in user a 6-digit nonce for `PUT /user {password, nonce}`
 * and `DELETE /account`: mailed to the email, or, for an account with a phone and no email, texted
 * through the SMS sender (GoTrue's answer then carries the `message_id`).
 */
export async function requestReauthentication(
  deps: Deps,
  user: UserRow,
  meta: RequestMeta,
): Promise<{ messageId?: string | undefined }> {
  const channel = reauthenticationChannel(user);
  if (!channel)
    throw new AuthError(
      'validation_failed',
      'Reauthentication requires the user to have an email or a phone number',
    );
  if (channel.kind === 'sms') return textReauthentication(deps, user, channel.to, meta);
  const email = channel.to;
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
  return {};
}

/**
 * The phone-only account's nonce, by SMS. GoTrue's checks: a confirmed number (its 422
 * "Please verify your phone first."), the per-number floor (SMS_MAX_FREQUENCY) and the SMS quota.
 */
async function textReauthentication(
  deps: Deps,
  user: UserRow,
  phone: string,
  meta: RequestMeta,
): Promise<{ messageId: string | undefined }> {
  if (!user.phoneConfirmedAt)
    throw new AuthError('phone_not_confirmed', 'Please verify your phone first.', { status: 422 });
  await enforceOtpIpLimit(deps, meta.ip);
  await enforcePhoneFloor(deps, phone);
  const now = deps.clock();
  await updateUser(deps.db, user.id, { reauthenticationSentAt: now, updatedAt: now });
  return sendPhoneCode(
    deps,
    user.id,
    phone,
    'reauthentication',
    { user: userJson(user, []), ip: meta.ip },
    { userMetadata: user.userMetadata },
  );
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
  // A 6-digit nonce can be guessed like any code: the same per-address hourly budget as the
  // address's other codes (an email's, or a number's as /verify counts it) bounds it.
  const channel = reauthenticationChannel(user);
  const key = channel?.kind === 'sms' ? phoneCodeAddress(channel.to) : (user.email ?? '');
  await enforceRateLimits(deps, [codeAttemptLimit(deps, key)], deps.config.rateLimits.window);
}

/** Spends the nonce inside the caller's transaction, so a failed change leaves it unspent. */
export async function consumeNonce(deps: Deps, tx: DbOrTx, user: UserRow, nonce: string): Promise<void> {
  const invalid = () => new AuthError('reauthentication_not_valid');
  const channel = reauthenticationChannel(user);
  if (!channel || !/^\d{6,10}$/.test(nonce)) throw invalid();
  // A test number (SMS_TEST_OTP) is texted nothing; its fixed code is its nonce, as at /verify.
  const testCode = channel.kind === 'sms' ? deps.config.phone.testOtp.get(channel.to) : undefined;
  if (testCode !== undefined && safeEqual(nonce, testCode)) return;
  const hashes = new Map([
    ['reauthentication', otpHash(deps, 'reauthentication', channel.to, nonce)] as const,
  ]);
  if (!(await consumeByOtp(tx, channel.to, hashes, deps.clock()))) throw invalid();
}
