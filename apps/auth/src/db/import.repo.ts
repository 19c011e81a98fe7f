// Writes users, identities and MFA factors moved in from another GoTrue / Supabase project
// (features/supabase-import). Rows keep their ids; a row whose id, email or phone is already taken
// is left out (never overwritten), and so are its identities and factors.
import type { DbOrTx } from './client.ts';
import { identities, mfaFactors, mfaRecoveryCodeSets, mfaRecoveryCodes, users } from './schema.ts';

export type ImportedUser = typeof users.$inferInsert & { id: string };
export type ImportedIdentity = typeof identities.$inferInsert;
export type ImportedFactor = typeof mfaFactors.$inferInsert;
export type ImportedRecoveryCodeSet = typeof mfaRecoveryCodeSets.$inferInsert & { id: string };
export type ImportedRecoveryCode = typeof mfaRecoveryCodes.$inferInsert;

export type ImportCounts = {
  users: number;
  skippedUsers: string[];
  identities: number;
  factors: number;
  recoveryCodes: number;
};

/** One transaction per batch: all of a batch's rows land, or none. */
export async function insertImportedBatch(
  db: DbOrTx,
  batch: {
    users: ImportedUser[];
    identities: ImportedIdentity[];
    factors: ImportedFactor[];
    recoveryCodeSets: ImportedRecoveryCodeSet[];
    recoveryCodes: ImportedRecoveryCode[];
  },
): Promise<ImportCounts> {
  if (batch.users.length === 0)
    return { users: 0, skippedUsers: [], identities: 0, factors: 0, recoveryCodes: 0 };
  // ON CONFLICT DO NOTHING with no target: a clash on the id, the email or the phone skips the row.
  const inserted = await db
    .insert(users)
    .values(batch.users)
    .onConflictDoNothing()
    .returning({ id: users.id });
  const ids = new Set(inserted.map((r) => r.id));
  const ownIdentities = batch.identities.filter((i) => ids.has(i.userId));
  const ownFactors = batch.factors.filter((f) => ids.has(f.userId));
  let identityCount = 0;
  if (ownIdentities.length > 0) {
    const rows = await db
      .insert(identities)
      .values(ownIdentities)
      .onConflictDoNothing()
      .returning({ id: identities.id });
    identityCount = rows.length;
  }
  const factorIds = new Set<string>();
  if (ownFactors.length > 0) {
    const rows = await db
      .insert(mfaFactors)
      .values(ownFactors)
      .onConflictDoNothing()
      .returning({ id: mfaFactors.id });
    for (const r of rows) factorIds.add(r.id);
  }
  // A recovery-code set lands only with its factor, and its codes only with the set.
  const ownSets = batch.recoveryCodeSets.filter((s) => factorIds.has(s.factorId));
  const setIds = new Set<string>();
  if (ownSets.length > 0) {
    const rows = await db
      .insert(mfaRecoveryCodeSets)
      .values(ownSets)
      .onConflictDoNothing()
      .returning({ id: mfaRecoveryCodeSets.id });
    for (const r of rows) setIds.add(r.id);
  }
  const ownCodes = batch.recoveryCodes.filter((c) => setIds.has(c.setId));
  let codeCount = 0;
  if (ownCodes.length > 0) {
    const rows = await db
      .insert(mfaRecoveryCodes)
      .values(ownCodes)
      .onConflictDoNothing()
      .returning({ setId: mfaRecoveryCodes.setId });
    codeCount = rows.length;
  }
  return {
    users: ids.size,
    skippedUsers: batch.users.filter((u) => !ids.has(u.id)).map((u) => u.id),
    identities: identityCount,
    factors: factorIds.size,
    recoveryCodes: codeCount,
  };
}
