import { randomUUID } from 'node:crypto';
import { and, eq, isNull, like, sql } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { mfaFactors, mfaRecoveryCodeSets, mfaRecoveryCodes } from './schema.ts';
import type { FactorRow } from './users.repo.ts';

export type RecoveryCodeSetRow = typeof mfaRecoveryCodeSets.$inferSelect;

export type RecoveryCodeState = {
  factor: FactorRow;
  set: RecoveryCodeSetRow | undefined;
  total: number;
  remaining: number;
};

/** The user's recovery-code factor (at most one) with its set and how many codes are left. */
export async function findRecoveryCodeState(
  db: DbOrTx,
  userId: string,
): Promise<RecoveryCodeState | undefined> {
  const [factor] = await db
    .select()
    .from(mfaFactors)
    .where(and(eq(mfaFactors.userId, userId), eq(mfaFactors.factorType, 'recovery_code')));
  if (!factor) return undefined;
  const [set] = await db
    .select()
    .from(mfaRecoveryCodeSets)
    .where(eq(mfaRecoveryCodeSets.factorId, factor.id));
  if (!set) return { factor, set: undefined, total: 0, remaining: 0 };
  const [counts] = await db
    .select({
      total: sql<number>`count(*)::int`,
      remaining: sql<number>`(count(*) filter (where ${mfaRecoveryCodes.usedAt} is null))::int`,
    })
    .from(mfaRecoveryCodes)
    .where(eq(mfaRecoveryCodes.setId, set.id));
  return { factor, set, total: counts?.total ?? 0, remaining: counts?.remaining ?? 0 };
}

/** Replaces the factor's set (its codes go with the old set: ON DELETE CASCADE); the lockout starts afresh. */
export async function replaceRecoveryCodeSet(
  db: DbOrTx,
  factorId: string,
  codeHashes: string[],
  now: Date,
): Promise<void> {
  await db.delete(mfaRecoveryCodeSets).where(eq(mfaRecoveryCodeSets.factorId, factorId));
  const setId = randomUUID();
  await db.insert(mfaRecoveryCodeSets).values({ id: setId, factorId, createdAt: now });
  await db.insert(mfaRecoveryCodes).values(codeHashes.map((codeHash) => ({ setId, codeHash })));
}

export async function isUnusedRecoveryCode(db: DbOrTx, setId: string, codeHash: string): Promise<boolean> {
  const rows = await db
    .select({ setId: mfaRecoveryCodes.setId })
    .from(mfaRecoveryCodes)
    .where(
      and(
        eq(mfaRecoveryCodes.setId, setId),
        eq(mfaRecoveryCodes.codeHash, codeHash),
        isNull(mfaRecoveryCodes.usedAt),
      ),
    );
  return rows.length === 1;
}

/**
 * The set's unused codes stored as GoTrue hashed them (argon2 PHC strings, moved in by the import):
 * none for a set this service made, whose hashes are keyed HMACs.
 */
export async function unusedImportedCodeHashes(db: DbOrTx, setId: string): Promise<string[]> {
  const rows = await db
    .select({ codeHash: mfaRecoveryCodes.codeHash })
    .from(mfaRecoveryCodes)
    .where(
      and(
        eq(mfaRecoveryCodes.setId, setId),
        isNull(mfaRecoveryCodes.usedAt),
        like(mfaRecoveryCodes.codeHash, '$argon2%'),
      ),
    );
  return rows.map((r) => r.codeHash);
}

/**
 * Spends one code: a conditional UPDATE, so of concurrent uses of one code exactly one sees it unused
 * (the others wait on the row lock, then find used_at set).
 */
export async function consumeRecoveryCode(
  db: DbOrTx,
  setId: string,
  codeHash: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(mfaRecoveryCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(mfaRecoveryCodes.setId, setId),
        eq(mfaRecoveryCodes.codeHash, codeHash),
        isNull(mfaRecoveryCodes.usedAt),
      ),
    )
    .returning({ setId: mfaRecoveryCodes.setId });
  return rows.length === 1;
}

/** Counts a wrong code in one statement; the failure that reaches `max` locks verification until `now + lockSec`. */
export async function recordRecoveryCodeFailure(
  db: DbOrTx,
  setId: string,
  max: number,
  lockSec: number,
  now: Date,
): Promise<number> {
  const until = new Date(now.getTime() + lockSec * 1000).toISOString();
  const [row] = await db
    .update(mfaRecoveryCodeSets)
    .set({
      failedVerificationCount: sql`${mfaRecoveryCodeSets.failedVerificationCount} + 1`,
      verificationLockedUntil: sql`case when ${mfaRecoveryCodeSets.failedVerificationCount} + 1 >= ${max}
        then ${until}::timestamptz else ${mfaRecoveryCodeSets.verificationLockedUntil} end`,
    })
    .where(eq(mfaRecoveryCodeSets.id, setId))
    .returning({ failed: mfaRecoveryCodeSets.failedVerificationCount });
  return row?.failed ?? 0;
}

export async function clearRecoveryCodeFailures(db: DbOrTx, setId: string): Promise<void> {
  await db
    .update(mfaRecoveryCodeSets)
    .set({ failedVerificationCount: 0, verificationLockedUntil: null })
    .where(eq(mfaRecoveryCodeSets.id, setId));
}
