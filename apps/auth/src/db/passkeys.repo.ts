// Passkeys (WebAuthn credentials that sign in on their own) and their open ceremonies.
import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { passkeyChallenges, passkeys } from './schema.ts';

export type PasskeyRow = typeof passkeys.$inferSelect;
export type PasskeyChallengeRow = typeof passkeyChallenges.$inferSelect;
export type PasskeyChallengeType = 'registration' | 'authentication';

export async function listPasskeys(db: DbOrTx, userId: string): Promise<PasskeyRow[]> {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt));
}

export async function countPasskeys(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return Number(row?.n ?? 0);
}

export async function findPasskeyByCredentialId(
  db: DbOrTx,
  credentialId: string,
): Promise<PasskeyRow | undefined> {
  const [row] = await db.select().from(passkeys).where(eq(passkeys.credentialId, credentialId));
  return row;
}

export async function findUserPasskey(
  db: DbOrTx,
  userId: string,
  id: string,
): Promise<PasskeyRow | undefined> {
  const [row] = await db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)));
  return row;
}

/** A new passkey; a credential id registered before raises a unique violation (23505). */
export async function insertPasskey(
  db: DbOrTx,
  p: Omit<PasskeyRow, 'id' | 'createdAt' | 'updatedAt' | 'lastUsedAt'> & { now: Date },
): Promise<PasskeyRow> {
  const { now, ...values } = p;
  const [row] = await db
    .insert(passkeys)
    .values({ id: randomUUID(), ...values, createdAt: now, updatedAt: now })
    .returning();
  return row as PasskeyRow;
}

export async function renamePasskey(
  db: DbOrTx,
  userId: string,
  id: string,
  friendlyName: string,
  now: Date,
): Promise<PasskeyRow | undefined> {
  const [row] = await db
    .update(passkeys)
    .set({ friendlyName, updatedAt: now })
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning();
  return row;
}

/**
 * Records a sign-in: the new signature counter and the time. Only while the stored counter is still
 * the one the assertion was checked against, so of two concurrent sign-ins with copies of one
 * assertion only one moves it (the other is refused as a replay).
 */
export async function recordPasskeyUse(
  db: DbOrTx,
  id: string,
  expectedCount: number,
  newCount: number,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(passkeys)
    .set({ signCount: newCount, lastUsedAt: now, updatedAt: now })
    .where(and(eq(passkeys.id, id), eq(passkeys.signCount, expectedCount)))
    .returning({ id: passkeys.id });
  return rows.length === 1;
}

export async function deleteUserPasskey(db: DbOrTx, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning({ id: passkeys.id });
  return rows.length === 1;
}

export async function insertPasskeyChallenge(
  db: DbOrTx,
  c: { userId: string | null; type: PasskeyChallengeType; challenge: string; expiresAt: Date; now: Date },
): Promise<PasskeyChallengeRow> {
  const [row] = await db
    .insert(passkeyChallenges)
    .values({
      id: randomUUID(),
      userId: c.userId,
      challengeType: c.type,
      challenge: c.challenge,
      expiresAt: c.expiresAt,
      createdAt: c.now,
    })
    .returning();
  return row as PasskeyChallengeRow;
}

/**
 * Consumes a ceremony (DELETE … RETURNING: of N concurrent uses exactly one gets it), of this type
 * and, for a registration, of this user. Expired rows are returned too, so the caller can tell
 * "expired" from "not found" (GoTrue's two answers); either way the row is gone.
 */
export async function consumePasskeyChallenge(
  db: DbOrTx,
  id: string,
  type: PasskeyChallengeType,
  userId: string | null,
): Promise<PasskeyChallengeRow | undefined> {
  const [row] = await db
    .delete(passkeyChallenges)
    .where(
      and(
        eq(passkeyChallenges.id, id),
        eq(passkeyChallenges.challengeType, type),
        userId === null ? isNull(passkeyChallenges.userId) : eq(passkeyChallenges.userId, userId),
      ),
    )
    .returning();
  return row;
}
