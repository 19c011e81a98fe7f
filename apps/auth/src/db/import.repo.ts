// Writes users, identities and MFA factors moved in from another GoTrue / Supabase project
// (features/supabase-import). Rows keep their ids; a row whose id, email or phone is already taken
// is left out (never overwritten), and so are its identities and factors.
import type { DbOrTx } from './client.ts';
import { identities, mfaFactors, users } from './schema.ts';

export type ImportedUser = typeof users.$inferInsert & { id: string };
export type ImportedIdentity = typeof identities.$inferInsert;
export type ImportedFactor = typeof mfaFactors.$inferInsert;

export type ImportCounts = { users: number; skippedUsers: string[]; identities: number; factors: number };

/** One transaction per batch: all of a batch's rows land, or none. */
export async function insertImportedBatch(
  db: DbOrTx,
  batch: { users: ImportedUser[]; identities: ImportedIdentity[]; factors: ImportedFactor[] },
): Promise<ImportCounts> {
  if (batch.users.length === 0) return { users: 0, skippedUsers: [], identities: 0, factors: 0 };
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
  let factorCount = 0;
  if (ownFactors.length > 0) {
    const rows = await db
      .insert(mfaFactors)
      .values(ownFactors)
      .onConflictDoNothing()
      .returning({ id: mfaFactors.id });
    factorCount = rows.length;
  }
  return {
    users: ids.size,
    skippedUsers: batch.users.filter((u) => !ids.has(u.id)).map((u) => u.id),
    identities: identityCount,
    factors: factorCount,
  };
}
