import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { flowState } from './schema.ts';

export type FlowStateRow = typeof flowState.$inferSelect;

export async function insertFlowState(
  db: DbOrTx,
  f: {
    userId: string;
    codeChallenge: string;
    codeChallengeMethod: string;
    authenticationMethod: string;
    /** 'email' (links) or the third-party provider's name. */
    providerType?: string;
    placeholderHash: string;
    /** Sealed (crypto/code-seal.ts): a social sign-in's provider tokens, for the code exchange. */
    providerTokens?: string | undefined;
    expiresAt: Date;
    now: Date;
  },
): Promise<FlowStateRow> {
  const [row] = await db
    .insert(flowState)
    .values({
      id: randomUUID(),
      userId: f.userId,
      // Until the link is used there is no auth code; a random hash nobody can match stands in.
      authCodeHash: f.placeholderHash,
      codeChallenge: f.codeChallenge,
      codeChallengeMethod: f.codeChallengeMethod,
      authenticationMethod: f.authenticationMethod,
      providerType: f.providerType ?? 'email',
      providerTokens: f.providerTokens ?? null,
      expiresAt: f.expiresAt,
      createdAt: f.now,
      updatedAt: f.now,
    })
    .returning();
  return row as FlowStateRow;
}

/** The link was used: the flow now has an auth code (stored hashed) valid until `expiresAt`. */
export async function issueAuthCode(
  db: DbOrTx,
  id: string,
  authCodeHash: string,
  now: Date,
  expiresAt: Date,
): Promise<void> {
  await db
    .update(flowState)
    .set({ authCodeHash, authCodeIssuedAt: now, expiresAt, updatedAt: now })
    .where(eq(flowState.id, id));
}

export async function findFlowStateByCode(
  db: DbOrTx,
  authCodeHash: string,
): Promise<FlowStateRow | undefined> {
  const [row] = await db.select().from(flowState).where(eq(flowState.authCodeHash, authCodeHash));
  return row;
}

/** Single use: DELETE … RETURNING, so of two concurrent exchanges exactly one wins. */
export async function consumeFlowState(db: DbOrTx, id: string): Promise<boolean> {
  const rows = await db.delete(flowState).where(eq(flowState.id, id)).returning({ id: flowState.id });
  return rows.length === 1;
}
