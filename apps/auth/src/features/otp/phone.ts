// Phone sign-in with an SMS code (signInWithOtp({ phone }), verifyOtp type sms), behind
// EXTERNAL_PHONE_ENABLED, through the SMS sender of core/sms (development mailbox or webhook).
// Numbers are kept as GoTrue keeps them: E.164 digits without the "+".
import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { otpHash } from '../../core/email-tokens.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { codeAttemptLimit, enforceRateLimits, perIpLimit, smsQuota } from '../../core/rate-limit.ts';
import { randomOtp, randomToken, safeEqual, sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import { consumeByOtp, deleteUserTokens, replaceOneTimeToken } from '../../db/one-time-tokens.repo.ts';
import { confirmPhone, findUserByPhone, insertPhoneUser, type UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

const E164 = /^[1-9]\d{1,14}$/;

/** GoTrue's validatePhone: drops a leading "+" and spaces, then E.164 digits. */
export function parsePhone(raw: string): string {
  const phone = raw.replace(/^\+/, '').replaceAll(' ', '');
  if (!E164.test(phone))
    throw new AuthError('validation_failed', 'Invalid phone number format (E.164 required)');
  return phone;
}

export function assertPhoneEnabled(deps: Deps): void {
  if (!deps.config.phone.enabled)
    throw new AuthError('phone_provider_disabled', 'Unsupported phone provider', { status: 400 });
}

/**
 * POST /otp with a phone: a 6-digit code by SMS, valid SMS_OTP_EXP seconds, replacing any earlier
 * one. A new number gets a passwordless account (create_user). An unknown number with create_user
 * false answers as a known one and sends nothing (GoTrue: 422 otp_disabled; see README).
 */
export async function requestPhoneOtp(
  deps: Deps,
  input: { phone: string; createUser: boolean; data: Record<string, unknown> },
  meta: RequestMeta,
): Promise<{ messageId: string | undefined }> {
  assertPhoneEnabled(deps);
  const phone = parsePhone(input.phone);
  const cfg = deps.config.phone;
  await enforceRateLimits(deps, [perIpLimit(deps, 'otp', meta.ip)], deps.config.rateLimits.window);
  // One code per number per SMS_MAX_FREQUENCY, counted before the look-up (known or not alike).
  if (cfg.maxFrequency > 0)
    await enforceRateLimits(
      deps,
      [
        {
          key: `sms:floor:${phone}`,
          limit: 1,
          windowSec: cfg.maxFrequency,
          code: 'over_sms_send_rate_limit',
        },
      ],
      cfg.maxFrequency,
    );
  const testCode = cfg.testOtp.get(phone);
  let user = await findUserByPhone(deps.db, phone);
  if (!user) {
    if (!input.createUser || deps.config.DISABLE_SIGNUP)
      return { messageId: testCode ? 'test-otp' : randomUUID() };
    try {
      user = await deps.db.transaction(async (tx) => {
        const created = await insertPhoneUser(tx, {
          phone,
          userMetadata: input.data,
          now: deps.clock(),
          ...newUserAudRole(deps.config),
        });
        await audit(tx, 'user_signedup', created.id, meta.ip, { provider: 'phone' });
        return created;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      user = await findUserByPhone(deps.db, phone);
      if (!user) throw err;
    }
  }
  // Test numbers: the fixed code is checked at /verify; nothing is stored or sent (GoTrue's rule).
  if (testCode) return { messageId: 'test-otp' };
  await smsQuota(deps);
  const code = randomOtp();
  const account: UserRow = user;
  const now = deps.clock();
  await deps.db.transaction(async (tx) => {
    await replaceOneTimeToken(tx, {
      userId: account.id,
      type: 'sms',
      // No link for an SMS code: a random, never-sent token fills the column.
      tokenHash: sha256(randomToken(32)),
      otpHash: otpHash(deps, 'sms', phone, code),
      relatesTo: phone,
      redirectTo: null,
      expiresAt: new Date(now.getTime() + cfg.otpExp * 1000),
      now,
    });
  });
  try {
    return await deps.sms.send({
      to: `+${phone}`,
      body: `Your Namaa sign-in code is ${code}. It expires in ${Math.max(1, Math.round(cfg.otpExp / 60))} minute(s).`,
      kind: 'phone_otp',
    });
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, sms: deps.sms.kind }, 'SMS send failed');
    await deleteUserTokens(deps.db, account.id, ['sms']).catch(() => {});
    throw new AuthError('sms_send_failed');
  }
}

const expired = () => new AuthError('otp_expired', 'Token has expired or is invalid');

/**
 * POST /verify {phone, token, type: 'sms'}: consumes the code (single use: DELETE … RETURNING) and
 * signs in, confirming the phone. A test number's fixed code is accepted and not used up (GoTrue).
 * Checked as GoTrue checks it (verify never looks at the phone switch): the format, then the code.
 */
export async function verifyPhoneOtp(
  deps: Deps,
  input: { phone: string; token: string },
  meta: RequestMeta,
): Promise<Session> {
  const phone = parsePhone(input.phone);
  await enforceRateLimits(
    deps,
    [perIpLimit(deps, 'verify', meta.ip), codeAttemptLimit(deps, `phone:${phone}`)],
    deps.config.rateLimits.window,
  );
  if (!/^\d{6,10}$/.test(input.token)) throw expired();
  const testCode = deps.config.phone.testOtp.get(phone);
  const now = deps.clock();
  const result = await deps.db.transaction(async (tx) => {
    let user: UserRow | undefined;
    if (testCode !== undefined && safeEqual(input.token, testCode)) user = await findUserByPhone(tx, phone);
    else {
      const token = await consumeByOtp(
        tx,
        phone,
        new Map([['sms', otpHash(deps, 'sms', phone, input.token)]]),
        now,
      );
      if (token) user = await findUserByPhone(tx, phone);
      if (user && token && user.id !== token.userId) user = undefined;
    }
    if (!user) throw expired();
    if (user.bannedUntil && user.bannedUntil > now)
      throw new AuthError('user_banned', undefined, { status: 403 });
    const confirmed = await confirmPhone(tx, user, now);
    const started = await startSession(deps, tx, confirmed, 'otp', meta);
    await audit(tx, 'login', confirmed.id, meta.ip, { provider: 'phone', method: 'sms' });
    return { user: confirmed, started };
  });
  return issueSession(deps, {
    user: result.user,
    session: result.started.session,
    refreshToken: result.started.refreshToken,
  });
}
