import { randomUUID } from 'node:crypto';
import { and, eq, ne, sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from '../db/client.ts';
import { type AmrEntry, refreshTokens, sessions, users } from '../db/schema.ts';
import type { UserRow } from './users.ts';

export type SessionRow = typeof sessions.$inferSelect;

/** Creates a session and its first refresh token (stored hashed). */
export async function insertSession(
  db: DbOrTx,
  s: {
    userId: string;
    amr: AmrEntry[];
    aal?: string;
    tokenHash: string;
    ip: string;
    userAgent?: string;
    now: Date;
  },
): Promise<SessionRow> {
  const id = randomUUID();
  const [row] = await db
    .insert(sessions)
    .values({
      id,
      userId: s.userId,
      amr: s.amr,
      aal: s.aal ?? 'aal1',
      ip: s.ip,
      userAgent: s.userAgent?.slice(0, 512),
      refreshedAt: s.now,
      createdAt: s.now,
      updatedAt: s.now,
    })
    .returning();
  await db.insert(refreshTokens).values({
    id: randomUUID(),
    tokenHash: s.tokenHash,
    sessionId: id,
    userId: s.userId,
    createdAt: s.now,
    updatedAt: s.now,
  });
  return row as SessionRow;
}

/** The session named by an access token, with its user, in one round trip. */
export async function findSessionWithUser(
  db: DbOrTx,
  sessionId: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sessionId));
  return row;
}

export async function deleteSession(db: DbOrTx, sessionId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

export async function deleteUserSessions(
  db: DbOrTx,
  userId: string,
  exceptSessionId?: string,
): Promise<void> {
  await db
    .delete(sessions)
    .where(
      exceptSessionId
        ? and(eq(sessions.userId, userId), ne(sessions.id, exceptSessionId))
        : eq(sessions.userId, userId),
    );
}

export type RefreshLookup = {
  token: typeof refreshTokens.$inferSelect;
  session: SessionRow;
  user: UserRow;
};

/** A refresh token with its session and user, in one round trip (the refresh hot path). */
export async function findRefreshToken(db: DbOrTx, tokenHash: string): Promise<RefreshLookup | undefined> {
  const [row] = await db
    .select({ token: refreshTokens, session: sessions, user: users })
    .from(refreshTokens)
    .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(refreshTokens.tokenHash, tokenHash));
  return row;
}

/**
 * Rotation in ONE statement: revoke the presented token only if it is still active, insert its child
 * and touch the session. Returns false when another request rotated it first (the caller then takes
 * the reuse path). Atomic on both PGlite and PostgreSQL without an explicit transaction.
 */
export async function rotateRefreshToken(
  db: DbOrTx,
  r: { tokenId: string; childHash: string; sessionId: string; userId: string; now: Date },
): Promise<boolean> {
  const now = r.now.toISOString();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`with revoked as (
        update refresh_tokens set revoked = true, revoked_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
        where id = ${r.tokenId}::uuid and not revoked
        returning token_hash),
      child as (
        insert into refresh_tokens (id, token_hash, parent_hash, session_id, user_id, revoked, created_at, updated_at)
        select ${randomUUID()}::uuid, ${r.childHash}, revoked.token_hash, ${r.sessionId}::uuid, ${r.userId}::uuid, false,
          ${now}::timestamptz, ${now}::timestamptz
        from revoked
        returning id),
      touched as (
        update sessions set refreshed_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
        where id = ${r.sessionId}::uuid and exists (select 1 from child))
      select id from child`,
  );
  return rows.length === 1;
}

/** The session's current (newest non-revoked) refresh token hash. */
export async function activeRefreshTokenHash(db: DbOrTx, sessionId: string): Promise<string | undefined> {
  const rows = await queryRows<{ token_hash: string }>(
    db,
    sql`select token_hash from refresh_tokens where session_id = ${sessionId}::uuid and not revoked
        order by created_at desc limit 1`,
  );
  return rows[0]?.token_hash;
}
