// Phone codes by SMS, behind EXTERNAL_PHONE_ENABLED, through the SMS sender of core/sms (development
// mailbox or webhook): sign-in (signInWithOtp({ phone }), verifyOtp type sms), the confirmation of
// a phone + password sign-up (same type), and a phone change (updateUser({ phone }), verifyOtp type
// phone_change). Numbers are kept as GoTrue keeps them: E.164 digits without the "+" (core/phone.ts).
import { randomUUID } from 'node:crypto';
import type { OtpChannel } from '../../config.ts';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { otpHash } from '../../core/email-tokens.ts';
import { afterUserCreated, beforeUserCreated, candidateUser } from '../../core/hooks/user-hooks.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { parsePhone } from '../../core/phone.ts';
import {
  codeAttemptLimit,
  enforceRateLimits,
  perIpLimit,
  phoneCodeAddress,
  smsFloorKey,
  smsQuota,
} from '../../core/rate-limit.ts';
import { type CodePurpose, codeText } from '../../core/sms/message-text.ts';
import { userJson } from '../../core/user-json.ts';
import { randomOtp, randomToken, safeEqual, sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import { type DbOrTx, isUniqueViolation } from '../../db/client.ts';
import { consumeByOtp, deleteUserTokens, replaceOneTimeToken } from '../../db/one-time-tokens.repo.ts';
import {
  confirmPhone,
  findUserByPendingPhone,
  findUserByPhone,
  insertPhoneUser,
  setIdentityAddress,
  type UserRow,
  updateUser,
} from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { mayCreateOtpAccount } from './unknown-account.ts';

export type PhoneCodeType = 'sms' | 'phone_change';
/** What a code can be texted for: the two /verify types, and GET /reauthenticate's nonce. */
export type TextedCodeType = PhoneCodeType | 'reauthentication';

const purposeOf: Record<TextedCodeType, CodePurpose> = {
  sms: 'sign_in',
  phone_change: 'phone_change',
  reauthentication: 'reauthentication',
};

const INVALID_CHANNEL = "Invalid channel, supported values are 'sms' or 'whatsapp'";

/**
 * The channel a phone code is asked for on (`channel` of POST /otp and a phone sign-up). WhatsApp
 * needs WHATSAPP_PROVIDER; without it GoTrue's answer for a channel its provider lacks.
 */
export function parseChannel(deps: Deps, channel: string | undefined): OtpChannel {
  if (channel === undefined || channel === 'sms') return 'sms';
  if (channel === 'whatsapp' && deps.config.delivery.whatsapp) return 'whatsapp';
  throw new AuthError('validation_failed', INVALID_CHANNEL);
}

export function assertPhoneEnabled(deps: Deps, message = 'Unsupported phone provider'): void {
  if (!deps.config.phone.enabled) throw new AuthError('phone_provider_disabled', message, { status: 400 });
}

/**
 * One code per number per SMS_MAX_FREQUENCY (GoTrue's per-user floor), counted before the account
 * is looked up, so a known and an unknown number spend and answer alike.
 */
export async function enforcePhoneFloor(deps: Deps, phone: string): Promise<void> {
  const floor = deps.config.phone.maxFrequency;
  if (floor <= 0) return;
  await enforceRateLimits(
    deps,
    [{ key: smsFloorKey(phone), limit: 1, windowSec: floor, floor: true, code: 'over_sms_send_rate_limit' }],
    floor,
  );
}

/** The message id a request that sent nothing answers with, shaped as one that did. */
export function unsentMessageId(deps: Deps, phone: string): string {
  return deps.config.phone.testOtp.has(phone) ? 'test-otp' : randomUUID();
}

/**
 * Texts a fresh 6-digit code of `type` to `phone` for this account, replacing any earlier one of
 * that type (one live code each), valid SMS_OTP_EXP seconds. Test numbers (SMS_TEST_OTP) get
 * nothing stored or sent: their fixed code is checked at /verify, or taken as the reauthentication
 * nonce (GoTrue's rule).
 */
export async function sendPhoneCode(
  deps: Deps,
  userId: string,
  phone: string,
  type: TextedCodeType,
  /** For the send-SMS hook (core/hooks): the user as GoTrue's JSON, and the caller's IP. */
  hook?: { user?: Record<string, unknown>; ip?: string },
  /** The channel asked for, and what the message's language is chosen by (core/mail/locale.ts). */
  delivery: { channel?: OtpChannel; userMetadata?: unknown; redirectTo?: string | undefined } = {},
): Promise<{ messageId: string | undefined }> {
  if (deps.config.phone.testOtp.has(phone)) return { messageId: 'test-otp' };
  await smsQuota(deps);
  const code = randomOtp();
  const now = deps.clock();
  await deps.db.transaction((tx) =>
    replaceOneTimeToken(tx, {
      userId,
      type,
      // No link for an SMS code: a random, never-sent token fills the column.
      tokenHash: sha256(randomToken(32)),
      otpHash: otpHash(deps, type, phone, code),
      relatesTo: phone,
      redirectTo: null,
      expiresAt: new Date(now.getTime() + deps.config.phone.otpExp * 1000),
      now,
    }),
  );
  const minutes = Math.max(1, Math.round(deps.config.phone.otpExp / 60));
  const locale = mailLocaleFor(delivery.redirectTo, deps.config.SITE_URL, delivery.userMetadata);
  try {
    return await deps.sms.send({
      to: `+${phone}`,
      body: codeText(locale, code, purposeOf[type], minutes),
      kind: 'phone_otp',
      channel: delivery.channel ?? 'sms',
      code,
      locale,
      userId,
      validForSec: deps.config.phone.otpExp,
      hook: {
        otp: code,
        userId,
        // GoTrue's sms_type for the two it names (a sign-in code carries none here).
        ...(type === 'sms' ? {} : { smsType: type }),
        ...hook,
      },
    });
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, sms: deps.sms.kind }, 'SMS send failed');
    await deleteUserTokens(deps.db, userId, [type]).catch(() => {});
    // The send-SMS hook's own answer (a refusal, a timeout) reaches the client as GoTrue's.
    if (err instanceof AuthError) throw err;
    throw new AuthError('sms_send_failed');
  }
}

/**
 * POST /otp with a phone: a 6-digit code by SMS. A new number gets a passwordless account
 * (create_user). An unknown number with create_user false answers as a known one and sends nothing
 * (GoTrue: 422 otp_disabled; see README).
 */
export async function requestPhoneOtp(
  deps: Deps,
  input: {
    phone: string;
    createUser: boolean;
    data: Record<string, unknown>;
    channel?: OtpChannel;
    redirectTo?: string | undefined;
  },
  meta: RequestMeta,
): Promise<{ messageId: string | undefined }> {
  assertPhoneEnabled(deps);
  const phone = parsePhone(input.phone);
  await enforceRateLimits(deps, [perIpLimit(deps, 'otp', meta.ip)], deps.config.rateLimits.window);
  await enforcePhoneFloor(deps, phone);
  let user = await findUserByPhone(deps.db, phone);
  if (!user) {
    if (!mayCreateOtpAccount(deps.config, input.createUser))
      return { messageId: unsentMessageId(deps, phone) };
    const id = randomUUID();
    await beforeUserCreated(
      deps,
      candidateUser({
        id,
        audRole: newUserAudRole(deps.config),
        provider: 'phone',
        phone,
        data: input.data,
        now: deps.clock(),
      }),
      meta.ip,
    );
    try {
      user = await deps.db.transaction(async (tx) => {
        const created = await insertPhoneUser(tx, {
          id,
          phone,
          userMetadata: input.data,
          now: deps.clock(),
          ...newUserAudRole(deps.config),
        });
        await audit(tx, 'user_signedup', created.id, meta.ip, { provider: 'phone' });
        return created;
      });
      await afterUserCreated(deps, userJson(user, []), meta.ip);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      user = await findUserByPhone(deps.db, phone);
      if (!user) throw err;
    }
  }
  return sendPhoneCode(
    deps,
    user.id,
    phone,
    'sms',
    { user: userJson(user, []), ip: meta.ip },
    { channel: input.channel ?? 'sms', userMetadata: user.userMetadata, redirectTo: input.redirectTo },
  );
}

const expired = () => new AuthError('otp_expired', 'Token has expired or is invalid');

/**
 * POST /verify {phone, token, type: 'sms' | 'phone_change'}: consumes the code (single use:
 * DELETE … RETURNING) and signs in. Type sms confirms the phone of the account that holds the
 * number; type phone_change moves the account whose change is pending to this number, confirmed.
 * A test number's fixed code is accepted and not used up (GoTrue). Checked as GoTrue checks it
 * (verify never looks at the phone switch): the format, then the code.
 */
export async function verifyPhoneOtp(
  deps: Deps,
  input: { phone: string; token: string; type?: PhoneCodeType },
  meta: RequestMeta,
): Promise<Session> {
  const type = input.type ?? 'sms';
  const phone = parsePhone(input.phone);
  await enforceRateLimits(
    deps,
    [perIpLimit(deps, 'verify', meta.ip), codeAttemptLimit(deps, phoneCodeAddress(phone))],
    deps.config.rateLimits.window,
  );
  if (!/^\d{6,10}$/.test(input.token)) throw expired();
  const testCode = deps.config.phone.testOtp.get(phone);
  const now = deps.clock();
  const holder = (tx: DbOrTx) =>
    type === 'sms' ? findUserByPhone(tx, phone) : findUserByPendingPhone(tx, phone);
  const result = await deps.db
    .transaction(async (tx) => {
      let user: UserRow | undefined;
      if (testCode !== undefined && safeEqual(input.token, testCode)) user = await holder(tx);
      else {
        const token = await consumeByOtp(
          tx,
          phone,
          new Map([[type, otpHash(deps, type, phone, input.token)]]),
          now,
        );
        if (token) user = await holder(tx);
        if (user && token && user.id !== token.userId) user = undefined;
      }
      if (!user) throw expired();
      if (user.bannedUntil && user.bannedUntil > now)
        throw new AuthError('user_banned', undefined, { status: 403 });
      const confirmed =
        type === 'sms' ? await confirmPhone(tx, user, now) : await applyPhoneChange(tx, user, phone, now);
      const started = await startSession(deps, tx, confirmed, 'otp', meta);
      await audit(tx, type === 'sms' ? 'login' : 'user_modified', confirmed.id, meta.ip, {
        provider: 'phone',
        method: type,
      });
      return { user: confirmed, started };
    })
    .catch((err: unknown) => {
      // Another account took the number after the change was requested.
      if (isUniqueViolation(err)) throw new AuthError('phone_exists');
      throw err;
    });
  return issueSession(deps, {
    user: result.user,
    session: result.started.session,
    refreshToken: result.started.refreshToken,
  });
}

/** The pending phone change made real: the new number, confirmed, in the user and its phone identity. */
async function applyPhoneChange(tx: DbOrTx, user: UserRow, phone: string, now: Date): Promise<UserRow> {
  const providers = Array.isArray(user.appMetadata.providers) ? (user.appMetadata.providers as string[]) : [];
  const updated = await updateUser(tx, user.id, {
    phone,
    phoneConfirmedAt: now,
    phoneChange: null,
    phoneChangeSentAt: null,
    appMetadata: providers.includes('phone')
      ? user.appMetadata
      : { ...user.appMetadata, providers: [...providers, 'phone'] },
    updatedAt: now,
  });
  await setIdentityAddress(tx, user.id, 'phone', phone, true, now);
  return updated;
}

/**
 * POST /resend type sms (a phone sign-up's code, while the number is unconfirmed) or phone_change
 * (the code to the pending new number; the request names the new number or, as GoTrue, the
 * current one). Answers a message id whatever happened, so a number with nothing pending looks
 * like one that was texted; the limits are counted before the look-up for the same reason.
 */
export async function resendPhoneCode(
  deps: Deps,
  type: PhoneCodeType,
  rawPhone: string,
  meta: RequestMeta,
): Promise<{ messageId: string | undefined }> {
  assertPhoneEnabled(deps, 'Phone logins are disabled');
  const phone = parsePhone(rawPhone);
  await enforceRateLimits(deps, [perIpLimit(deps, 'otp', meta.ip)], deps.config.rateLimits.window);
  await enforcePhoneFloor(deps, phone);
  if (type === 'sms') {
    const user = await findUserByPhone(deps.db, phone);
    if (!user || user.phoneConfirmedAt) return { messageId: unsentMessageId(deps, phone) };
    await updateUser(deps.db, user.id, { confirmationSentAt: deps.clock() });
    return sendPhoneCode(deps, user.id, phone, 'sms', undefined, { userMetadata: user.userMetadata });
  }
  const user = (await findUserByPendingPhone(deps.db, phone)) ?? (await findUserByPhone(deps.db, phone));
  const to = user?.phoneChange;
  if (!user || !to) return { messageId: unsentMessageId(deps, phone) };
  // The pending number has its own floor too (the request may have named the current one).
  if (to !== phone) await enforcePhoneFloor(deps, to);
  await updateUser(deps.db, user.id, { phoneChangeSentAt: deps.clock() });
  return sendPhoneCode(deps, user.id, to, 'phone_change', undefined, { userMetadata: user.userMetadata });
}

/**
 * PUT /user { phone }: a different number is held as the pending change and texted a code
 * (verifyOtp type phone_change applies it). A number another account holds is 422 phone_exists
 * (GoTrue's answer). Runs before the rest of the update's transaction; the same number is a no-op.
 */
export async function requestPhoneChange(
  deps: Deps,
  user: UserRow,
  rawPhone: string,
): Promise<{ pending: boolean }> {
  assertPhoneEnabled(deps, 'Phone logins are disabled');
  const phone = parsePhone(rawPhone);
  if (phone === user.phone) return { pending: false };
  const other = await findUserByPhone(deps.db, phone);
  if (other) throw new AuthError('phone_exists');
  await enforcePhoneFloor(deps, phone);
  await updateUser(deps.db, user.id, {
    phoneChange: phone,
    phoneChangeSentAt: deps.clock(),
    updatedAt: deps.clock(),
  });
  await sendPhoneCode(deps, user.id, phone, 'phone_change', undefined, { userMetadata: user.userMetadata });
  return { pending: true };
}
