// Storage of the account page's extension endpoints (features/account): the sessions list, the data
// export and the deletion of an account by its owner.
import { desc, eq, or, sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from './client.ts';
import { rowFromJson } from './hot-query.ts';
import { auditLogEntries, mailOutbox, sessions } from './schema.ts';
import type { SessionRow } from './sessions.repo.ts';
import { deleteUserById } from './users.repo.ts';

/** The user's sessions, most recently active first. */
export async function listUserSessions(db: DbOrTx, userId: string): Promise<SessionRow[]> {
  return db
    .select()
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(desc(sql`coalesce(${sessions.refreshedAt}, ${sessions.createdAt})`));
}

export type AuditEventRow = typeof auditLogEntries.$inferSelect;

/**
 * The audit rows about the user: the ones it acted in, and the admin API's rows naming it as their
 * target (`payload.user_id`). Newest first, at most `limit`.
 */
export async function listUserAuditEvents(
  db: DbOrTx,
  userId: string,
  limit: number,
): Promise<AuditEventRow[]> {
  // The rows are found through the two indexes first (a BitmapOr of audit_log_actor_idx and
  // audit_log_payload_user_idx: a few rows), then sorted. Written as one ORDER BY … LIMIT, the
  // planner walked the whole created_at index backwards instead, filtering every row: 1.5 s at a
  // million accounts (5 million audit rows), for a request any signed-in user can make
  // (docs/sizing.md, "Plans at a million accounts"). MATERIALIZED keeps the two steps apart.
  const rows = await queryRows<{ r: Record<string, unknown> | string }>(
    db,
    sql`with mine as materialized (
        select * from ${auditLogEntries}
        where ${auditLogEntries.actorId} = ${userId} or ${auditLogEntries.payload}->>'user_id' = ${userId})
      select row_to_json(mine) as r from mine order by created_at desc limit ${limit}`,
  );
  return rows.map((row) =>
    rowFromJson(auditLogEntries, typeof row.r === 'string' ? JSON.parse(row.r) : row.r),
  );
}

/**
 * Erases an account inside the caller's transaction: the user row (its identities, factors,
 * challenges, sessions, refresh tokens, one-time tokens and PKCE flows go with it through the
 * foreign keys' ON DELETE CASCADE), its mail (unsent links that would point at nothing, and the addresses of sent ones), and the
 * personal data of its audit rows: the rows stay (what happened and when, under the now meaningless
 * user id), their IP address and any address in their payload do not. Returns false when the user
 * was already gone (a concurrent deletion).
 */
export async function eraseAccount(db: DbOrTx, userId: string): Promise<boolean> {
  // The sessions go first, in the lock order a concurrent refresh uses (deleteUserById): a refresh
  // in flight finishes before this deletion or finds its token gone, never a half-deleted account.
  if (!(await deleteUserById(db, userId))) return false;
  await db.delete(mailOutbox).where(eq(mailOutbox.userId, userId));
  await db
    .update(auditLogEntries)
    .set({
      ipAddress: null,
      // The keys of audit payloads that can name a person (the admin API records its target's address).
      payload: sql`${auditLogEntries.payload} - array['user_email', 'email', 'phone', 'new_email', 'user_agent']::text[]`,
    })
    .where(or(eq(auditLogEntries.actorId, userId), sql`${auditLogEntries.payload}->>'user_id' = ${userId}`));
  return true;
}
