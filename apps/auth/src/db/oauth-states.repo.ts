import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { oauthStates } from './schema.ts';

export type OAuthStateRow = typeof oauthStates.$inferSelect;
export type NewOAuthState = Omit<typeof oauthStates.$inferInsert, 'id' | 'createdAt'> & { now: Date };

/** Records a sign-in leaving for the provider (expired ones go in the sweep, core/sweep.ts). */
export async function insertOAuthState(db: DbOrTx, s: NewOAuthState): Promise<void> {
  const { now, ...values } = s;
  await db.insert(oauthStates).values({ ...values, id: randomUUID(), createdAt: now });
}

/** Single use: DELETE … RETURNING, so a replayed `state` (or two racing callbacks) finds nothing. */
export async function consumeOAuthState(db: DbOrTx, stateHash: string): Promise<OAuthStateRow | undefined> {
  const [row] = await db.delete(oauthStates).where(eq(oauthStates.stateHash, stateHash)).returning();
  return row;
}
