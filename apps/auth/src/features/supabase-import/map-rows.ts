// GoTrue's auth.users / auth.identities / auth.mfa_factors rows → ours. Ids are kept (existing
// tokens' `sub`, foreign keys in the project's own tables and the audit trail stay valid), and so are
// the password hashes: bcrypt and argon2 verify at sign-in and are rehashed to argon2id on success
// (crypto/passwords.ts). What cannot move is reported, never guessed.
import { normalizeDigits } from '../../core/digits.ts';
import type {
  ImportedFactor,
  ImportedIdentity,
  ImportedRecoveryCode,
  ImportedRecoveryCodeSet,
  ImportedUser,
} from '../../db/import.repo.ts';
import type { SourceData, SourceRow } from './read-source.ts';

export type Mapped = {
  users: ImportedUser[];
  identities: ImportedIdentity[];
  factors: ImportedFactor[];
  recoveryCodeSets: ImportedRecoveryCodeSet[];
  recoveryCodes: ImportedRecoveryCode[];
  /** One line per thing left behind (a hash we cannot verify, an encrypted TOTP secret…). */
  warnings: string[];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The hashes crypto/passwords.ts verifies: bcrypt ($2a$/$2b$/$2y$) and argon2. */
const VERIFIABLE_HASH = /^(\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}|\$argon2(id|i)\$.+)$/;

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const nonEmpty = (v: unknown): string | null => {
  const s = text(v);
  return s === null || s === '' ? null : s;
};
const importedPhone = (v: unknown): string | null => {
  const s = nonEmpty(v);
  return s === null ? null : normalizeDigits(s, 'phone').replace(/^\+/, '') || null;
};
/** pg_dump's `2024-01-01 10:00:00.123456+00` or to_jsonb's `2024-01-01T10:00:00.123456+00:00`. */
export function timestamp(v: unknown): Date | null {
  const s = nonEmpty(v);
  if (s === null) return null;
  const iso = s.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new Error(`not a timestamp: ${s.slice(0, 40)}`);
  return d;
}
const bool = (v: unknown): boolean => v === true || v === 't' || v === 'true';
function json(v: unknown): Record<string, unknown> {
  if (v === null || v === undefined || v === '') return {};
  const parsed = typeof v === 'string' ? JSON.parse(v) : v;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

function mapUser(r: SourceRow, warnings: string[]): ImportedUser | undefined {
  const id = text(r.id);
  if (!id || !UUID.test(id)) {
    warnings.push(`user with id ${String(r.id).slice(0, 40)}: not a uuid, left out`);
    return undefined;
  }
  let hash = nonEmpty(r.encrypted_password);
  if (hash !== null && !VERIFIABLE_HASH.test(hash)) {
    warnings.push(
      `user ${id}: password hash of an unsupported kind, imported without a password (reset needed)`,
    );
    hash = null;
  }
  const createdAt = timestamp(r.created_at) ?? new Date();
  return {
    id: id.toLowerCase(),
    aud: nonEmpty(r.aud) ?? 'authenticated',
    role: nonEmpty(r.role) ?? 'authenticated',
    email: nonEmpty(r.email)?.toLowerCase() ?? null,
    encryptedPassword: hash,
    emailConfirmedAt: timestamp(r.email_confirmed_at),
    invitedAt: timestamp(r.invited_at),
    confirmationSentAt: timestamp(r.confirmation_sent_at),
    recoverySentAt: timestamp(r.recovery_sent_at),
    // A pending email or phone change does not move: its link or code was never copied.
    lastSignInAt: timestamp(r.last_sign_in_at),
    appMetadata: json(r.raw_app_meta_data),
    userMetadata: json(r.raw_user_meta_data),
    // GoTrue stores phones as E.164 digits without "+", as this service does; a number written into
    // its table by hand in Arabic digits is stored in the one form every look-up uses.
    phone: importedPhone(r.phone),
    phoneConfirmedAt: timestamp(r.phone_confirmed_at),
    isAnonymous: bool(r.is_anonymous),
    bannedUntil: timestamp(r.banned_until),
    deletedAt: timestamp(r.deleted_at),
    createdAt,
    updatedAt: timestamp(r.updated_at) ?? createdAt,
  };
}

function mapIdentity(r: SourceRow): ImportedIdentity | undefined {
  const id = text(r.id);
  const userId = text(r.user_id);
  const provider = nonEmpty(r.provider);
  if (!id || !UUID.test(id) || !userId || !UUID.test(userId) || !provider) return undefined;
  const data = json(r.identity_data);
  const createdAt = timestamp(r.created_at) ?? new Date();
  return {
    id,
    userId,
    // Older GoTrue versions had no provider_id column: the id was the provider's subject.
    providerId: nonEmpty(r.provider_id) ?? text(data.sub) ?? id,
    provider,
    identityData: data,
    email:
      nonEmpty(r.email)?.toLowerCase() ?? (typeof data.email === 'string' ? data.email.toLowerCase() : null),
    lastSignInAt: timestamp(r.last_sign_in_at),
    createdAt,
    updatedAt: timestamp(r.updated_at) ?? createdAt,
  };
}

function mapFactor(r: SourceRow, warnings: string[]): ImportedFactor | undefined {
  const id = text(r.id);
  const userId = text(r.user_id);
  if (!id || !UUID.test(id) || !userId || !UUID.test(userId)) return undefined;
  const type = text(r.factor_type);
  if (text(r.status) !== 'verified') return undefined; // an abandoned enrolment
  const createdAt = timestamp(r.created_at) ?? new Date();
  const base = {
    id,
    userId,
    friendlyName: text(r.friendly_name) ?? '',
    status: 'verified',
    lastChallengedAt: timestamp(r.last_challenged_at),
    createdAt,
    updatedAt: timestamp(r.updated_at) ?? createdAt,
  };
  if (type === 'totp') {
    const secret = nonEmpty(r.secret);
    // GoTrue with SECURITY_DB_ENCRYPTION stores the secret encrypted (a JSON envelope); without
    // its key the secret is lost, so the factor is left out and the user enrols again.
    if (!secret || !/^[A-Z2-7]+=*$/.test(secret)) {
      warnings.push(
        `TOTP factor ${id} of user ${userId}: secret encrypted or missing, left out (enrol again)`,
      );
      return undefined;
    }
    return { ...base, factorType: 'totp', secret };
  }
  if (type === 'phone') {
    const phone = importedPhone(r.phone);
    if (!phone) return undefined;
    return { ...base, factorType: 'phone', phone };
  }
  // Its codes are checked with the set (mapRecoveryCodes): without them the factor does not move.
  if (type === 'recovery_code' || type === 'recovery_codes') return { ...base, factorType: 'recovery_code' };
  warnings.push(`${type ?? 'unknown'} factor ${id} of user ${userId}: not moved (enrol again)`);
  return undefined;
}

/**
 * GoTrue's recovery-code hash: argon2id in PHC form with its own salt and no server secret
 * (supabase/auth internal/crypto/recovery_codes.go), so the service can verify a typed code against
 * it (features/mfa/recovery-codes.ts, matchImportedCode).
 */
export const GOTRUE_RECOVERY_CODE_HASH =
  /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/**
 * Each moved recovery-code factor with its set (lockout state) and codes, hashes kept as GoTrue
 * wrote them. A factor moves only whole: with its set, every hash in GoTrue's form, and another
 * verified factor of its user moving too (codes must never be the only second factor, the rule of
 * DELETE /factors/{id}). Otherwise it stays behind, reported: the user makes new codes.
 */
function mapRecoveryCodes(
  source: SourceData,
  factors: ImportedFactor[],
  warnings: string[],
): Pick<Mapped, 'factors' | 'recoveryCodeSets' | 'recoveryCodes'> {
  const out: Pick<Mapped, 'factors' | 'recoveryCodeSets' | 'recoveryCodes'> = {
    factors: [],
    recoveryCodeSets: [],
    recoveryCodes: [],
  };
  for (const f of factors) {
    if (f.factorType !== 'recovery_code') {
      out.factors.push(f);
      continue;
    }
    const leave = (why: string) =>
      warnings.push(
        `recovery codes (factor ${f.id}) of user ${f.userId}: not moved, ${why} (the user makes new ones)`,
      );
    // The set names its factor mfa_factor_id (the model) or factor_id (the first schema draft).
    const set = source.recoveryCodeSets.find((r) => text(r.mfa_factor_id ?? r.factor_id) === f.id);
    const setId = text(set?.id);
    if (!set || !setId || !UUID.test(setId)) {
      leave('no code set in the source');
      continue;
    }
    const codes = source.recoveryCodes.filter((r) => text(r.mfa_recovery_code_set_id ?? r.set_id) === setId);
    if (codes.length === 0 || codes.some((c) => !GOTRUE_RECOVERY_CODE_HASH.test(text(c.code_hash) ?? ''))) {
      leave('codes stored in a form this service cannot verify');
      continue;
    }
    if (!factors.some((o) => o.userId === f.userId && o.factorType !== 'recovery_code')) {
      leave('no other factor of the user moved with them');
      continue;
    }
    out.factors.push(f);
    const failures = Number(text(set.failed_verification_count) ?? 0);
    out.recoveryCodeSets.push({
      id: setId,
      factorId: f.id,
      failedVerificationCount: Number.isInteger(failures) && failures >= 0 ? failures : 0,
      verificationLockedUntil: timestamp(set.verification_locked_until),
      createdAt: timestamp(set.created_at) ?? f.createdAt ?? new Date(),
    });
    for (const c of codes)
      out.recoveryCodes.push({
        setId,
        codeHash: text(c.code_hash) as string,
        usedAt: timestamp(c.consumed_at ?? c.used_at),
      });
  }
  return out;
}

/** Maps every row; rows that cannot move are left out with a warning. */
export function mapSource(source: SourceData): Mapped {
  const warnings: string[] = [];
  const users = source.users.flatMap((r) => mapUser(r, warnings) ?? []);
  const ids = new Set(users.map((u) => u.id));
  const identities = source.identities.flatMap((r) => mapIdentity(r) ?? []).filter((i) => ids.has(i.userId));
  const mapped = source.factors.flatMap((r) => mapFactor(r, warnings) ?? []).filter((f) => ids.has(f.userId));
  return { users, identities, ...mapRecoveryCodes(source, mapped, warnings), warnings };
}
