// MFA enrolment and unenrolment (POST /factors, DELETE /factors/{id}) with GoTrue's rules.

import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { EnrolledFactor } from '../../core/http/response-schemas.ts';
import { parsePhone } from '../../core/phone.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import {
  deleteExpiredUnverifiedFactors,
  deleteFactor,
  downgradeSessionsOfFactor,
  findUserFactor,
  insertFactor,
  listFactors,
} from '../../db/mfa.repo.ts';
import type { SessionRow } from '../../db/sessions.repo.ts';
import type { FactorRow, UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { newTotpSecret, totpQrSvg, totpUri } from './totp.ts';

export const FACTOR_TYPES = ['totp', 'phone', 'webauthn'] as const;
export type FactorType = (typeof FACTOR_TYPES)[number];

/** The amr method each factor type adds to a session (GoTrue's names). */
export const AMR_METHOD: Record<string, string> = {
  totp: 'totp',
  phone: 'mfa/phone',
  webauthn: 'mfa/webauthn',
};
export const MFA_AMR_METHODS = Object.values(AMR_METHOD);

export const E164 = /^\+[1-9]\d{7,14}$/;

export function hasVerifiedFactor(factors: FactorRow[]): boolean {
  return factors.some((f) => f.status === 'verified');
}

/** Factor ids are uuids; anything else is GoTrue's 404 validation_failed. */
export function assertFactorId(id: string): void {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new AuthError('validation_failed', 'factor_id must be an UUID', { status: 404 });
}

/** The oldest last activity (creation or last challenge) an unverified factor may have now. */
function enrolmentCutoff(deps: Deps, now: Date): Date {
  return new Date(now.getTime() - deps.config.mfa.factorExpiry * 1000);
}

/**
 * An enrolment left unfinished for MFA_FACTOR_EXPIRY (after its creation or last challenge) is over:
 * the factor is refused as not found (and deleted) at once, not only when the sweep gets to it.
 */
export function isExpiredEnrolment(deps: Deps, factor: FactorRow, now: Date): boolean {
  if (factor.status === 'verified') return false;
  return (factor.lastChallengedAt ?? factor.createdAt) < enrolmentCutoff(deps, now);
}

export async function requireFactor(deps: Deps, user: UserRow, id: string): Promise<FactorRow> {
  assertFactorId(id);
  const factor = await findUserFactor(deps.db, user.id, id.toLowerCase());
  if (!factor) throw new AuthError('mfa_factor_not_found');
  const now = deps.clock();
  if (isExpiredEnrolment(deps, factor, now)) {
    // Only what is still an expired enrolment goes (never a factor verified meanwhile).
    await deleteExpiredUnverifiedFactors(deps.db, enrolmentCutoff(deps, now), user.id);
    throw new AuthError('mfa_factor_not_found');
  }
  return factor;
}

/**
 * The periodic sweep (main.ts): deletes every expired enrolment. Without it an abandoned unverified
 * factor stayed until its owner's next enrolment, listed in GET /user for anyone holding a session.
 */
export async function sweepExpiredFactors(deps: Deps): Promise<number> {
  return deleteExpiredUnverifiedFactors(deps.db, enrolmentCutoff(deps, deps.clock()));
}

/**
 * Who may challenge or verify a factor. Proving a verified factor is the second step of every
 * MFA sign-in, so an aal1 session may do it. Verifying an *unverified* factor also yields aal2, so
 * while the user has any verified factor only an aal2 session may do that: otherwise a password
 * alone would reach aal2 through an enrolment the owner abandoned (answering a WebAuthn factor's
 * creation options with the attacker's own key), or through a TOTP secret that leaked from one.
 * 403 like GoTrue's enrolment rule, which this completes.
 */
export function assertMayProve(factor: FactorRow, factors: FactorRow[], session: SessionRow): void {
  if (factor.status === 'verified' || session.aal === 'aal2') return;
  if (hasVerifiedFactor(factors))
    throw new AuthError('insufficient_aal', 'AAL2 required to verify a new factor', { status: 403 });
}

export type EnrollInput = {
  factorType: string;
  friendlyName?: string | undefined;
  issuer?: string | undefined;
  phone?: string | undefined;
};

export async function enrollFactor(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  input: EnrollInput,
  meta: RequestMeta,
): Promise<EnrolledFactor> {
  if (!(FACTOR_TYPES as readonly string[]).includes(input.factorType))
    throw new AuthError('validation_failed', 'factor_type needs to be totp, phone or webauthn');
  if (user.isAnonymous)
    throw new AuthError('no_authorization', 'Anonymous user not allowed to perform these actions', {
      status: 403,
    });
  const type = input.factorType as FactorType;
  if (type === 'phone' && deps.sms.kind === 'none') throw new AuthError('mfa_phone_enroll_not_enabled');
  let phone: string | undefined;
  if (type === 'phone') {
    // The one parser (digits typed in Arabic script, separators), then MFA's own minimum of 8 digits.
    phone = parsePhone(input.phone ?? '');
    if (!E164.test(`+${phone}`))
      throw new AuthError('validation_failed', 'Invalid phone number format (E.164 required)');
  }
  const friendlyName = (input.friendlyName ?? '').trim();
  const now = deps.clock();

  await deleteExpiredUnverifiedFactors(deps.db, enrolmentCutoff(deps, now), user.id);
  const factors = await listFactors(deps.db, user.id);
  const verified = factors.filter((f) => f.status === 'verified');
  // With MFA on, only an aal2 session may add a factor (otherwise a stolen password adds its own).
  if (verified.length > 0 && session.aal !== 'aal2')
    throw new AuthError('insufficient_aal', 'AAL2 required to enroll a new factor', { status: 403 });
  if (factors.length >= deps.config.mfa.maxEnrolledFactors)
    throw new AuthError('too_many_enrolled_mfa_factors');
  if (factors.some((f) => f.friendlyName === friendlyName))
    throw new AuthError(
      'mfa_factor_name_conflict',
      `A factor with the friendly name "${friendlyName.slice(0, 100)}" for this user already exists`,
    );
  if (phone && verified.some((f) => f.factorType === 'phone' && f.phone === phone))
    throw new AuthError('mfa_verified_factor_exists');

  const secret = type === 'totp' ? newTotpSecret() : undefined;
  let factor: FactorRow;
  try {
    // The factor and its audit row commit together (a failed audit write enrols nothing).
    factor = await deps.db.transaction(async (tx) => {
      const row = await insertFactor(tx, {
        userId: user.id,
        factorType: type,
        friendlyName,
        ...(secret ? { secret } : {}),
        ...(phone ? { phone } : {}),
        now,
      });
      await audit(tx, 'factor_enrolled', user.id, meta.ip, { factor_id: row.id, type });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AuthError('mfa_factor_name_conflict');
    throw err;
  }
  if (type === 'totp' && secret) {
    const issuer = (input.issuer ?? '').trim() || new URL(deps.config.SITE_URL).host;
    const uri = totpUri(issuer, user.email || user.phone || user.id, secret);
    return {
      id: factor.id,
      type: 'totp',
      friendly_name: friendlyName,
      totp: { qr_code: await totpQrSvg(uri), secret, uri },
    };
  }
  if (type === 'phone') return { id: factor.id, type: 'phone', friendly_name: friendlyName, phone };
  return { id: factor.id, type: 'webauthn', friendly_name: friendlyName };
}

/**
 * DELETE /factors/{id}: while the user has a verified factor, unenrolling anything needs an aal2
 * session (422 insufficient_aal, GoTrue's status for this rule). GoTrue asks aal2 only for a verified
 * factor; we ask it for an unverified one too, so an aal1 session cannot clear away the owner's
 * pending enrolments (or make room under MFA_MAX_ENROLLED_FACTORS) either.
 */
export async function unenrollFactor(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  id: string,
  meta: RequestMeta,
): Promise<{ id: string }> {
  const factor = await requireFactor(deps, user, id);
  if (session.aal !== 'aal2') {
    if (factor.status === 'verified')
      throw new AuthError('insufficient_aal', 'AAL2 required to unenroll verified factor', { status: 422 });
    if (hasVerifiedFactor(await listFactors(deps.db, user.id)))
      throw new AuthError('insufficient_aal', 'AAL2 required to unenroll a factor while MFA is enabled', {
        status: 422,
      });
  }
  const now = deps.clock();
  await deps.db.transaction(async (tx) => {
    if (!(await deleteFactor(tx, factor.id))) throw new AuthError('mfa_factor_not_found');
    await downgradeSessionsOfFactor(tx, factor.id, AMR_METHOD[factor.factorType] ?? '', MFA_AMR_METHODS, now);
    await audit(tx, 'factor_unenrolled', user.id, meta.ip, { factor_id: factor.id });
  });
  return { id: factor.id };
}
