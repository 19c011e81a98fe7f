// MFA challenge and verify (POST /factors/{id}/challenge, POST /factors/{id}/verify).
import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { mfaVerificationAttempt } from '../../core/hooks/verification-hooks.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession } from '../../core/issue-session.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import { queueSecurityNotice } from '../../core/mail/notices.ts';
import {
  clearBackoff,
  enforceRateLimits,
  mfaBackoffKey,
  perIpLimit,
  reserveFactorAttempt,
  smsQuota,
} from '../../core/rate-limit.ts';
import { newRefreshToken } from '../../core/refresh-token.ts';
import { codeText } from '../../core/sms/message-text.ts';
import { userJson } from '../../core/user-json.ts';
import { hmac, randomOtp, safeEqual, sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import {
  claimPhoneChallenge,
  consumeChallenge,
  deleteChallenge,
  deleteUnverifiedFactorsOfType,
  findChallenge,
  insertChallenge,
  listFactors,
  markTotpStepUsed,
  pruneUsedTotpSteps,
  updateFactor,
  upgradeSession,
} from '../../db/mfa.repo.ts';
import { deleteUserSessions, type SessionRow } from '../../db/sessions.repo.ts';
import type { FactorRow, UserRow } from '../../db/users.repo.ts';
import { AuthError, frequencyMessage } from '../../errors.ts';
import { AMR_METHOD, assertMayProve, requireFactor } from './factors.ts';
import { checkTotp, TOTP_PERIOD } from './totp.ts';
import { type StoredCredential, verifyWebauthn, type WebauthnSession, webauthnOptions } from './webauthn.ts';

/** Codes are bound to the challenge: a code sent for one challenge never verifies another. */
function phoneCodeHash(deps: Deps, challengeId: string, code: string): string {
  return hmac(deps.secrets.otp, `mfa_phone:${challengeId}:${code}`);
}

/** Bounds guessing per factor (a 6-digit code has 10^6 values); the IP limiters come on top. */
async function limitAttempts(deps: Deps, kind: string, factorId: string, meta: RequestMeta): Promise<void> {
  await enforceRateLimits(
    deps,
    [
      { key: `mfa:${kind}:${factorId}`, limit: 30 },
      // Per client network as well (GoTrue: 15 per minute for MFA challenge and verify).
      perIpLimit(deps, 'mfa', meta.ip),
    ],
    300,
  );
}

/**
 * A failed verification: an audit row, and once per streak (the failure that starts the back-off) a
 * notice to the owner, who learns that someone holding their password is guessing the second factor.
 */
async function recordFailure(
  deps: Deps,
  user: UserRow,
  factor: FactorRow,
  streak: number | undefined,
  meta: RequestMeta,
): Promise<void> {
  const notify = streak !== undefined && streak === deps.config.rateLimits.mfaBackoffAfter && !!user.email;
  await deps.db.transaction(async (tx) => {
    await audit(tx, 'factor_verification_failed', user.id, meta.ip, {
      factor_id: factor.id,
      type: factor.factorType,
      ...(streak !== undefined ? { failures: streak } : {}),
    });
    if (notify)
      await queueSecurityNotice(deps, tx, user, 'mfa_verification_failures', {
        values: { Failures: streak },
        factorType: factor.factorType,
      });
  });
  if (notify) deps.mail.kick();
}

export async function createChallenge(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  factorId: string,
  input: { channel?: string | undefined },
  meta: RequestMeta,
): Promise<Record<string, unknown>> {
  const factor = await requireFactor(deps, user, factorId);
  const factors = await listFactors(deps.db, user.id);
  assertMayProve(factor, factors, session);
  await limitAttempts(deps, 'challenge', factor.id, meta);
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + deps.config.mfa.challengeExpiry * 1000);
  const expiresAtSec = Math.floor(expiresAt.getTime() / 1000);

  if (factor.factorType === 'phone') {
    const channel = input.channel ?? 'sms';
    if (channel !== 'sms' && channel !== 'whatsapp')
      throw new AuthError('validation_failed', 'Channel must be sms or whatsapp');
    // A factor's language is the one remembered on the user (there is no page to go by).
    const locale = mailLocaleFor(undefined, deps.config.SITE_URL, user.userMetadata);
    const wait = deps.config.mfa.phoneMaxFrequency;
    const code = randomOtp();
    const challenge = await deps.db.transaction(async (tx) => {
      // The resend floor is claimed atomically in the database, not checked against the factor read
      // above: of parallel challenges only the one that claims it goes on to send an SMS.
      const claim = await claimPhoneChallenge(tx, factor.id, now, wait);
      if (!claim.claimed) {
        if (!claim.lastChallengedAt) throw new AuthError('mfa_factor_not_found');
        const last = claim.lastChallengedAt.getTime();
        const left = Math.max(1, Math.ceil((last + wait * 1000 - now.getTime()) / 1000));
        throw new AuthError('over_sms_send_rate_limit', frequencyMessage(left), {
          headers: { 'Retry-After': String(left) },
        });
      }
      const id = randomUUID();
      return insertChallenge(tx, {
        id,
        factorId: factor.id,
        ip: meta.ip,
        otpCodeHash: phoneCodeHash(deps, id, code),
        expiresAt,
        now,
      });
    });
    try {
      // Counted only for a challenge that won its floor, so refused parallel requests use none of it.
      await smsQuota(deps);
    } catch (err) {
      await deleteChallenge(deps.db, challenge.id).catch(() => {});
      throw err;
    }
    try {
      await deps.sms.send({
        to: `+${factor.phone}`,
        body: codeText(locale, code, 'mfa', Math.max(1, Math.round(deps.config.mfa.challengeExpiry / 60))),
        kind: 'mfa_phone',
        channel,
        code,
        locale,
        userId: user.id,
        validForSec: deps.config.mfa.challengeExpiry,
        hook: { otp: code, user: userJson(user, []), smsType: 'mfa', ip: meta.ip },
      });
    } catch (err) {
      deps.logger.error({ err: (err as Error).message, sms: deps.sms.kind }, 'SMS send failed');
      await deleteChallenge(deps.db, challenge.id).catch(() => {});
      // The send-SMS hook's own answer (a refusal, a timeout) reaches the client as GoTrue's.
      if (err instanceof AuthError) throw err;
      throw new AuthError('sms_send_failed');
    }
    return { id: challenge.id, type: 'phone', expires_at: expiresAtSec };
  }

  if (factor.factorType === 'webauthn') {
    const others = factors.filter(
      (f) => f.factorType === 'webauthn' && f.status === 'verified' && f.id !== factor.id,
    );
    const { session, publicKey } = await webauthnOptions(deps.config, user, factor, others);
    const challenge = await deps.db.transaction(async (tx) => {
      const row = await insertChallenge(tx, {
        factorId: factor.id,
        ip: meta.ip,
        webauthnSessionData: session,
        expiresAt,
        now,
      });
      await updateFactor(tx, factor.id, { lastChallengedAt: now });
      return row;
    });
    return {
      id: challenge.id,
      type: 'webauthn',
      expires_at: expiresAtSec,
      webauthn: { type: session.type, credential_options: { publicKey } },
    };
  }

  const challenge = await deps.db.transaction(async (tx) => {
    const row = await insertChallenge(tx, { factorId: factor.id, ip: meta.ip, expiresAt, now });
    await updateFactor(tx, factor.id, { lastChallengedAt: now });
    return row;
  });
  return { id: challenge.id, type: 'totp', expires_at: expiresAtSec };
}

export type VerifyFactorInput = {
  challengeId: string;
  code?: string | undefined;
  webauthn?: { credential_response?: unknown } | undefined;
};

export async function verifyFactor(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  factorId: string,
  input: VerifyFactorInput,
  meta: RequestMeta,
): Promise<Session> {
  const factor = await requireFactor(deps, user, factorId);
  // Checked again at verify: the challenge may predate the user's first verified factor.
  assertMayProve(factor, await listFactors(deps.db, user.id), session);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.challengeId))
    throw new AuthError('validation_failed', 'challenge_id must be an UUID');
  await limitAttempts(deps, 'verify', factor.id, meta);
  const challenge = await findChallenge(deps.db, factor.id, input.challengeId.toLowerCase());
  if (!challenge)
    throw new AuthError('mfa_factor_not_found', 'MFA factor with the provided challenge ID not found', {
      status: 422,
    });
  // GoTrue binds a challenge to the address that asked for it.
  if (challenge.ipAddress !== meta.ip) throw new AuthError('mfa_ip_address_mismatch');
  const now = deps.clock();
  if (challenge.expiresAt <= now) {
    await deleteChallenge(deps.db, challenge.id);
    throw new AuthError('mfa_challenge_expired');
  }

  // GoTrue's mfa_verification_attempt hook, for code factors (TOTP and phone): told whether the code
  // was right, it may refuse; a refusal signs the user out everywhere (403 mfa_verification_rejected).
  const mfaHook = async (valid: boolean): Promise<void> => {
    if (factor.factorType === 'webauthn') return;
    const decision = await mfaVerificationAttempt(deps, {
      userId: user.id,
      factorId: factor.id,
      factorType: factor.factorType,
      valid,
      ip: meta.ip,
    });
    if (!decision?.reject) return;
    await deleteUserSessions(deps.db, user.id);
    throw new AuthError('mfa_verification_rejected', decision.message);
  };
  // Counted before the check, so parallel guesses cannot all slip through one free slot.
  const streak = await reserveFactorAttempt(deps, factor.id);
  let totpStep: number | undefined;
  let credential: { credential: StoredCredential; aaguid: string | undefined } | undefined;
  try {
    if (factor.factorType === 'totp') {
      totpStep = await checkTotp(
        factor.secret ?? '',
        String(input.code ?? ''),
        Math.floor(now.getTime() / 1000),
      );
      if (totpStep === undefined) throw new AuthError('mfa_verification_failed', 'Invalid TOTP code entered');
    } else if (factor.factorType === 'phone') {
      const code = String(input.code ?? '');
      const ok =
        /^\d{6}$/.test(code) &&
        challenge.otpCodeHash !== null &&
        safeEqual(phoneCodeHash(deps, challenge.id, code), challenge.otpCodeHash);
      if (!ok) throw new AuthError('mfa_verification_failed', 'Invalid MFA Phone code entered');
    } else {
      const ws = challenge.webauthnSessionData as WebauthnSession | null;
      if (!ws) throw new AuthError('mfa_verification_failed', 'Not a WebAuthn challenge');
      credential = await verifyWebauthn(deps.config, factor, ws, input.webauthn?.credential_response);
    }
  } catch (err) {
    if (err instanceof AuthError && err.code === 'mfa_verification_failed') {
      await recordFailure(deps, user, factor, streak, meta);
      await mfaHook(false);
    }
    throw err;
  }
  await mfaHook(true);

  const refreshToken = newRefreshToken(session.id);
  const method = AMR_METHOD[factor.factorType] as string;
  const upgraded = await deps.db.transaction(async (tx) => {
    // Single use, also under concurrency: only one verification consumes the challenge.
    if (!(await consumeChallenge(tx, challenge.id)))
      throw new AuthError('mfa_factor_not_found', 'MFA factor with the provided challenge ID not found', {
        status: 422,
      });
    if (totpStep !== undefined) {
      // A code is accepted once per factor, even in another challenge (RFC 6238 §5.2).
      if (!(await markTotpStepUsed(tx, factor.id, totpStep)))
        throw new AuthError('mfa_verification_failed', 'Invalid TOTP code entered');
      await pruneUsedTotpSteps(tx, factor.id, Math.floor(now.getTime() / 1000 / TOTP_PERIOD) - 2);
    }
    if (streak !== undefined) await clearBackoff(tx, mfaBackoffKey(factor.id));
    const patch: Parameters<typeof updateFactor>[2] = { updatedAt: now };
    if (factor.status !== 'verified') patch.status = 'verified';
    if (credential) {
      patch.webauthnCredential = credential.credential as unknown as Record<string, unknown>;
      if (credential.aaguid) patch.webauthnAaguid = credential.aaguid;
    }
    await updateFactor(tx, factor.id, patch);
    if (factor.status !== 'verified')
      await deleteUnverifiedFactorsOfType(tx, user.id, factor.factorType, factor.id);
    const row = await upgradeSession(tx, {
      session,
      factorId: factor.id,
      method,
      newTokenHash: sha256(refreshToken),
      now,
    });
    await audit(tx, 'factor_verified', user.id, meta.ip, { factor_id: factor.id, type: factor.factorType });
    return row;
  });
  return issueSession(deps, { user, session: upgraded, refreshToken, hook: { ip: meta.ip } });
}
