import { randomUUID } from 'node:crypto';
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { oneTimeTokens } from './schema.ts';

export type OneTimeTokenRow = typeof oneTimeTokens.$inferSelect;
export type OneTimeTokenType =
  | 'confirmation'
  | 'recovery'
  | 'magiclink'
  | 'sms'
  | 'phone_change'
  | 'email_change_new'
  | 'email_change_current'
  | 'reauthentication';

/** Stores a new token, replacing any earlier one of the same type for that user (one live link each). */
export async function replaceOneTimeToken(
  db: DbOrTx,
  t: {
    userId: string;
    type: OneTimeTokenType;
    tokenHash: string;
    otpHash: string;
    relatesTo: string;
    redirectTo: string | null;
    expiresAt: Date;
    now: Date;
    flowStateId?: string | undefined;
  },
): Promise<void> {
  await db
    .delete(oneTimeTokens)
    .where(and(eq(oneTimeTokens.userId, t.userId), eq(oneTimeTokens.tokenType, t.type)));
  await db.insert(oneTimeTokens).values({
    id: randomUUID(),
    userId: t.userId,
    tokenType: t.type,
    tokenHash: t.tokenHash,
    otpHash: t.otpHash,
    relatesTo: t.relatesTo,
    redirectTo: t.redirectTo,
    expiresAt: t.expiresAt,
    createdAt: t.now,
    flowStateId: t.flowStateId ?? null,
  });
}

/**
 * Consumes a token by its link hash: DELETE … RETURNING, so of N concurrent uses exactly one gets
 * the row. Expired rows are never returned.
 */
export async function consumeByTokenHash(
  db: DbOrTx,
  tokenHash: string,
  types: OneTimeTokenType[],
  now: Date,
): Promise<OneTimeTokenRow | undefined> {
  const [row] = await db
    .delete(oneTimeTokens)
    .where(
      and(
        eq(oneTimeTokens.tokenHash, tokenHash),
        inArray(oneTimeTokens.tokenType, types),
        gt(oneTimeTokens.expiresAt, now),
      ),
    )
    .returning();
  return row;
}

/** Consumes a token by (address, code hash); same single-use guarantee as above. */
export async function consumeByOtp(
  db: DbOrTx,
  relatesTo: string,
  otpHashes: Map<OneTimeTokenType, string>,
  now: Date,
): Promise<OneTimeTokenRow | undefined> {
  const conditions = [...otpHashes].map(
    ([type, hash]) => sql`(${oneTimeTokens.tokenType} = ${type} and ${oneTimeTokens.otpHash} = ${hash})`,
  );
  const [row] = await db
    .delete(oneTimeTokens)
    .where(
      and(
        eq(oneTimeTokens.relatesTo, relatesTo),
        gt(oneTimeTokens.expiresAt, now),
        sql`(${sql.join(conditions, sql` or `)})`,
      ),
    )
    .returning();
  return row;
}

export async function deleteUserTokens(
  db: DbOrTx,
  userId: string,
  types?: OneTimeTokenType[],
): Promise<void> {
  await db
    .delete(oneTimeTokens)
    .where(
      types
        ? and(eq(oneTimeTokens.userId, userId), inArray(oneTimeTokens.tokenType, types))
        : eq(oneTimeTokens.userId, userId),
    );
}
