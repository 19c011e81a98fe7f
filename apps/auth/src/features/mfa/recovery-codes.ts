// MFA recovery codes (GET/POST/DELETE /factors/recovery-codes, …/regenerate, …/verify): the wire and
// rules of GoTrue's recovery codes (supabase/auth #2725, #2754, #2762, #2764, #2772, #2780, #2787) as
// supabase-js's experimental `auth.mfa.recoveryCodes` calls them (supabase-js #2676).
import { randomInt } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { mfaVerificationAttempt } from '../../core/hooks/verification-hooks.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession } from '../../core/issue-session.ts';
import { queueSecurityNotice } from '../../core/mail/notices.ts';
import { enforceRateLimits, perIpLimit } from '../../core/rate-limit.ts';
import { newRefreshToken } from '../../core/refresh-token.ts';
import { argon2Matches } from '../../crypto/passwords.ts';
import { hmac, sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import { type DbOrTx, isUniqueViolation } from '../../db/client.ts';
import {
  deleteFactor,
  downgradeSessionsOfFactor,
  insertFactor,
  listFactors,
  upgradeSession,
} from '../../db/mfa.repo.ts';
import {
  clearRecoveryCodeFailures,
  consumeRecoveryCode,
  findRecoveryCodeState,
  isUnusedRecoveryCode,
  type RecoveryCodeState,
  recordRecoveryCodeFailure,
  replaceRecoveryCodeSet,
  unusedImportedCodeHashes,
} from '../../db/recovery-codes.repo.ts';
import { deleteUserSessions, type SessionRow } from '../../db/sessions.repo.ts';
import type { UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { AMR_METHOD, MFA_AMR_METHODS } from './factors.ts';

export const RECOVERY_CODE_COUNT = 10;
export const RECOVERY_CODE_LENGTH = 16;
export const DEFAULT_RECOVERY_CODES_NAME = 'Recovery codes';
/** Crockford's base32 alphabet in lower case: no i, l, o or u to misread. 16 symbols carry 80 bits. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type RecoveryCodesAnswer = {
  id: string;
  type: 'recovery_code';
  friendly_name: string;
  total: number;
  codes: string[];
};

function newCode(): string {
  let out = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/**
 * What a person types back: any case, with the spaces or dashes the site groups the code with, and
 * Crockford's look-alikes (o → 0, i/l → 1). Undefined when it cannot be a code at all.
 */
export function normalizeRecoveryCode(input: string): string | undefined {
  const code = input.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  if (code.length !== RECOVERY_CODE_LENGTH) return undefined;
  for (const ch of code) if (!ALPHABET.includes(ch)) return undefined;
  return code;
}

/**
 * A keyed hash bound to the factor: 80 random bits need no slow hash (nothing to guess from), and a
 * fast one lets verify find the code with one indexed lookup instead of comparing ten argon2 hashes.
 */
function codeHash(deps: Deps, factorId: string, code: string): string {
  return hmac(deps.secrets.otp, `mfa_recovery_code:${factorId}:${code}`);
}

/**
 * GoTrue's canonical form of a typed code: whitespace and dashes dropped, lower case. Its alphabet is
 * RFC 4648 base32 (a–z, 2–7), so none of our look-alike mapping applies. Undefined when it cannot be one.
 */
function gotrueCanonicalCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, '').toLowerCase();
  return /^[a-z2-7]{8,64}$/.test(code) ? code : undefined;
}

/**
 * A code moved in from GoTrue (features/supabase-import) keeps GoTrue's hash: argon2id with its own
 * salt, which no lookup can find, so the typed code is checked against each unused one (at most the
 * set's ten, and only for a set that has such hashes). Answers the matching stored hash, which is
 * then spent like any other.
 */
async function matchImportedCode(setId: string, input: string, deps: Deps): Promise<string | undefined> {
  const hashes = await unusedImportedCodeHashes(deps.db, setId);
  if (hashes.length === 0) return undefined;
  const code = gotrueCanonicalCode(input);
  if (!code) return undefined;
  for (const stored of hashes) if (await argon2Matches(stored, code)) return stored;
  return undefined;
}

function aal2Required(what: string): AuthError {
  return new AuthError('insufficient_aal', `AAL2 required to ${what} recovery codes`, { status: 403 });
}

async function requireState(deps: Deps, user: UserRow): Promise<RecoveryCodeState> {
  const state = await findRecoveryCodeState(deps.db, user.id);
  if (!state) throw new AuthError('mfa_factor_not_found', 'Recovery codes are not enrolled');
  return state;
}

/** GET: the factor and its counts, never a code (nor the lockout state). */
export async function recoveryCodesStatus(
  deps: Deps,
  user: UserRow,
): Promise<{ id: string; total: number; remaining: number }> {
  const state = await requireState(deps, user);
  return { id: state.factor.id, total: state.total, remaining: state.remaining };
}

function issueCodes(deps: Deps, factorId: string): { codes: string[]; hashes: string[] } {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  const list = [...codes];
  return { codes: list, hashes: list.map((c) => codeHash(deps, factorId, c)) };
}

/** POST: the first set. The factor is created verified; the codes are answered this once only. */
export async function generateRecoveryCodes(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  input: { friendlyName?: string | undefined },
  meta: RequestMeta,
): Promise<RecoveryCodesAnswer> {
  if (!deps.config.mfa.recoveryCodes.enrollEnabled) throw new AuthError('mfa_recovery_codes_enroll_disabled');
  if (session.aal !== 'aal2') throw aal2Required('generate');
  const factors = await listFactors(deps.db, user.id);
  if (factors.some((f) => f.factorType === 'recovery_code'))
    throw new AuthError(
      'mfa_verified_factor_exists',
      'Recovery codes already exist, regenerate them or delete them first',
    );
  if (!factors.some((f) => f.status === 'verified' && f.factorType !== 'recovery_code'))
    throw new AuthError('mfa_recovery_codes_sole_factor');
  const friendlyName = (input.friendlyName ?? '').trim() || DEFAULT_RECOVERY_CODES_NAME;
  const now = deps.clock();
  try {
    return await deps.db.transaction(async (tx) => {
      const factor = await insertFactor(tx, {
        userId: user.id,
        factorType: 'recovery_code',
        friendlyName,
        verified: true,
        now,
      });
      const { codes, hashes } = issueCodes(deps, factor.id);
      await replaceRecoveryCodeSet(tx, factor.id, hashes, now);
      await audit(tx, 'recovery_codes_generated', user.id, meta.ip, { factor_id: factor.id });
      return {
        id: factor.id,
        type: 'recovery_code',
        friendly_name: friendlyName,
        total: codes.length,
        codes,
      };
    });
  } catch (err) {
    // Two generations at once: the partial unique index lets one in; a taken name is GoTrue's conflict.
    if (isUniqueViolation(err)) {
      if (await findRecoveryCodeState(deps.db, user.id))
        throw new AuthError('mfa_verified_factor_exists', 'Recovery codes already exist');
      throw new AuthError('mfa_factor_name_conflict');
    }
    throw err;
  }
}

/** POST …/regenerate: a new set under the same factor; every code of the old set stops working. */
export async function regenerateRecoveryCodes(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  meta: RequestMeta,
): Promise<RecoveryCodesAnswer> {
  if (!deps.config.mfa.recoveryCodes.enrollEnabled) throw new AuthError('mfa_recovery_codes_enroll_disabled');
  if (session.aal !== 'aal2') throw aal2Required('regenerate');
  const state = await requireState(deps, user);
  const now = deps.clock();
  const { codes, hashes } = issueCodes(deps, state.factor.id);
  await deps.db.transaction(async (tx) => {
    await replaceRecoveryCodeSet(tx, state.factor.id, hashes, now);
    await audit(tx, 'recovery_codes_regenerated', user.id, meta.ip, { factor_id: state.factor.id });
  });
  return {
    id: state.factor.id,
    type: 'recovery_code',
    friendly_name: state.factor.friendlyName,
    total: codes.length,
    codes,
  };
}

/** DELETE: the factor and its codes go; sessions that reached aal2 with a code fall back (as unenrol does). */
export async function deleteRecoveryCodes(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  meta: RequestMeta,
): Promise<{ id: string }> {
  if (session.aal !== 'aal2') throw aal2Required('delete');
  const state = await requireState(deps, user);
  const now = deps.clock();
  await deps.db.transaction(async (tx) => {
    if (!(await deleteFactor(tx, state.factor.id))) throw new AuthError('mfa_factor_not_found');
    await downgradeSessionsOfFactor(
      tx,
      state.factor.id,
      AMR_METHOD.recovery_code as string,
      MFA_AMR_METHODS,
      now,
    );
    await audit(tx, 'factor_unenrolled', user.id, meta.ip, {
      factor_id: state.factor.id,
      type: 'recovery_code',
    });
  });
  return { id: state.factor.id };
}

/**
 * After a factor was deleted outside the user's own unenrol (which refuses to leave the codes alone):
 * when no verified factor other than the codes is left, the codes go too, in the caller's
 * transaction, so a set of printed codes never becomes the whole second step. Returns the deleted
 * recovery-code factor's id, if any.
 */
export async function dropOrphanedRecoveryCodes(
  tx: DbOrTx,
  userId: string,
  now: Date,
): Promise<string | undefined> {
  const factors = await listFactors(tx, userId);
  const codes = factors.find((f) => f.factorType === 'recovery_code');
  if (!codes) return undefined;
  if (factors.some((f) => f.status === 'verified' && f.factorType !== 'recovery_code')) return undefined;
  if (!(await deleteFactor(tx, codes.id))) return undefined;
  await downgradeSessionsOfFactor(tx, codes.id, AMR_METHOD.recovery_code as string, MFA_AMR_METHODS, now);
  return codes.id;
}

/**
 * POST …/verify: spends one code and raises the caller's own session to aal2, answering a session as
 * POST /factors/{id}/verify does. Wrong codes count toward the per-user lockout.
 */
export async function verifyRecoveryCode(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  input: { code: string },
  meta: RequestMeta,
): Promise<Session> {
  if (!deps.config.mfa.recoveryCodes.verifyEnabled) throw new AuthError('mfa_recovery_codes_verify_disabled');
  // The same per-network limit as every MFA verification (GoTrue: 15 a minute).
  await enforceRateLimits(deps, [perIpLimit(deps, 'mfa', meta.ip)], 300);
  const state = await requireState(deps, user);
  const set = state.set;
  if (!set) throw new AuthError('mfa_factor_not_found', 'Recovery codes are not enrolled');
  const now = deps.clock();
  if (set.verificationLockedUntil && set.verificationLockedUntil > now) {
    const left = Math.max(1, Math.ceil((set.verificationLockedUntil.getTime() - now.getTime()) / 1000));
    throw new AuthError('mfa_recovery_codes_locked', undefined, { headers: { 'Retry-After': String(left) } });
  }
  const { factor } = state;
  const hook = async (valid: boolean): Promise<void> => {
    const decision = await mfaVerificationAttempt(deps, {
      userId: user.id,
      factorId: factor.id,
      factorType: 'recovery_code',
      valid,
      ip: meta.ip,
    });
    if (!decision?.reject) return;
    await deleteUserSessions(deps.db, user.id);
    throw new AuthError('mfa_verification_rejected', decision.message);
  };
  const fail = async (): Promise<never> => {
    const { maxFailedAttempts, lockoutDuration } = deps.config.mfa.recoveryCodes;
    await deps.db.transaction(async (tx) => {
      const failures = await recordRecoveryCodeFailure(tx, set.id, maxFailedAttempts, lockoutDuration, now);
      await audit(tx, 'factor_verification_failed', user.id, meta.ip, {
        factor_id: factor.id,
        type: 'recovery_code',
        failures,
      });
    });
    await hook(false);
    throw new AuthError('mfa_verification_failed', 'Invalid recovery code entered');
  };

  const code = normalizeRecoveryCode(input.code);
  let hash = code ? codeHash(deps, factor.id, code) : undefined;
  if (!hash || !(await isUnusedRecoveryCode(deps.db, set.id, hash)))
    hash = await matchImportedCode(set.id, input.code, deps);
  if (!hash) return fail();
  await hook(true);
  const refreshToken = newRefreshToken(session.id);
  const notify = !!user.email;
  const upgraded = await deps.db.transaction(async (tx) => {
    // Checked above, spent here: of parallel uses of one code only one finds it unused.
    if (!(await consumeRecoveryCode(tx, set.id, hash, now))) return undefined;
    await clearRecoveryCodeFailures(tx, set.id);
    const row = await upgradeSession(tx, {
      session,
      factorId: factor.id,
      method: AMR_METHOD.recovery_code as string,
      newTokenHash: sha256(refreshToken),
      now,
    });
    await audit(tx, 'recovery_code_used', user.id, meta.ip, {
      factor_id: factor.id,
      remaining: Math.max(0, state.remaining - 1),
    });
    if (notify) await queueSecurityNotice(deps, tx, user, 'mfa_recovery_code_used');
    return row;
  });
  if (!upgraded) return fail();
  if (notify) deps.mail.kick();
  return issueSession(deps, { user, session: upgraded, refreshToken, hook: { ip: meta.ip } });
}
