import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from './client.ts';

/**
 * The sweep's statements (core/sweep.ts runs them): each deletes at most `limit` rows that are past
 * `before`, in one statement of its own (one short transaction), and returns how many went.
 *
 * Every one picks its rows with `FOR UPDATE SKIP LOCKED`: rows a request holds (a refresh rotating
 * a token, a verification consuming a link) are skipped, never waited for, and two instances sweeping
 * at once take disjoint rows. Every one reads through an index whose range holds only doomed rows
 * (test/db/plans.test.ts), so a batch costs its own rows, not the table.
 */
export type SweepStatement = (db: DbOrTx, limit: number, before: Date) => Promise<number>;

async function deleted(db: DbOrTx, query: SQL): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(db, query);
  return Number(row?.n ?? 0);
}

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Rotated refresh tokens, by the time of their rotation (updated_at = revoked_at). The parent of a
 * session's active token stays whatever its age: presenting it answers the active token (the client
 * that lost the rotation's answer), which the reuse rules need (features/session/refresh.ts).
 */
export const sweepRevokedRefreshTokens: SweepStatement = (db, limit, before) =>
  deleted(
    db,
    sql`with doomed as (
        select t.id from refresh_tokens t
        where t.revoked and t.updated_at < ${ts(before)}
          and not exists (select 1 from refresh_tokens a
            where a.session_id = t.session_id and not a.revoked and a.parent_hash = t.token_hash)
        limit ${limit} for update of t skip locked),
      d as (delete from refresh_tokens r using doomed where r.id = doomed.id returning 1)
      select count(*) as n from d`,
  );

/** Sessions begun before `before` (SESSIONS_TIMEBOX); their refresh tokens go with them (cascade). */
export const sweepTimeboxedSessions: SweepStatement = (db, limit, before) =>
  deleted(
    db,
    sql`with doomed as (
        select id from sessions where created_at < ${ts(before)} limit ${limit} for update skip locked),
      d as (delete from sessions s using doomed where s.id = doomed.id returning 1)
      select count(*) as n from d`,
  );

/**
 * Sessions last refreshed before `before` (SESSIONS_INACTIVITY_TIMEOUT), found through their active
 * refresh token: its updated_at is the session's last refresh (or sign-in), and indexing it costs a
 * refresh nothing extra, while an index on sessions.refreshed_at would turn every refresh's session
 * update from a HOT update into one that writes every index of the table.
 */
export const sweepInactiveSessions: SweepStatement = (db, limit, before) =>
  deleted(
    db,
    sql`with doomed as (
        select t.session_id from refresh_tokens t
        where not t.revoked and t.updated_at < ${ts(before)}
        limit ${limit} for update of t skip locked),
      d as (delete from sessions s using doomed where s.id = doomed.session_id
        and coalesce(s.refreshed_at, s.created_at) < ${ts(before)} returning 1)
      select count(*) as n from d`,
  );

/** Sessions past their `not_after` (GoTrue's column) before `before`. */
export const sweepNotAfterSessions: SweepStatement = (db, limit, before) =>
  deleted(
    db,
    sql`with doomed as (
        select id from sessions where not_after < ${ts(before)} limit ${limit} for update skip locked),
      d as (delete from sessions s using doomed where s.id = doomed.id returning 1)
      select count(*) as n from d`,
  );

/** Rows of `table` whose `column` is before `before`, by id (the column is indexed). */
function byTime(table: string, column: string): SweepStatement {
  const t = sql.raw(table);
  const c = sql.raw(column);
  return (db, limit, before) =>
    deleted(
      db,
      sql`with doomed as (
          select id from ${t} where ${c} < ${ts(before)} limit ${limit} for update skip locked),
        d as (delete from ${t} x using doomed where x.id = doomed.id returning 1)
        select count(*) as n from d`,
    );
}

/** Email links and codes (one_time_tokens) expired before `before`. */
export const sweepExpiredOneTimeTokens = byTime('one_time_tokens', 'expires_at');
/** PKCE flow states never exchanged, expired before `before`. */
export const sweepExpiredFlowStates = byTime('flow_state', 'expires_at');
/** Third-party sign-ins never come back from the provider, expired before `before`. */
export const sweepExpiredOAuthStates = byTime('oauth_states', 'expires_at');
/** MFA challenges never verified, expired before `before`. */
export const sweepExpiredChallenges = byTime('mfa_challenges', 'expires_at');
/** Passkey ceremonies nobody finished (features/passkeys), by their expiry. */
export const sweepExpiredPasskeyChallenges = byTime('passkey_challenges', 'expires_at');
/** Audit rows written before `before` (AUDIT_LOG_RETENTION_DAYS). */
export const sweepAuditLog = byTime('audit_log_entries', 'created_at');

/** Sent and given-up mail created before `before` (pending mail stays whatever its age). */
export const sweepOldMail: SweepStatement = (db, limit, before) =>
  deleted(
    db,
    sql`with doomed as (
        select id from mail_outbox where status in ('sent', 'failed') and created_at < ${ts(before)}
        limit ${limit} for update skip locked),
      d as (delete from mail_outbox m using doomed where m.id = doomed.id returning 1)
      select count(*) as n from d`,
  );

function counters(where: (before: Date) => SQL): SweepStatement {
  return (db, limit, before) =>
    deleted(
      db,
      sql`with doomed as (
          select key, window_start from rate_limit_counters where ${where(before)}
          limit ${limit} for update skip locked),
        d as (delete from rate_limit_counters c using doomed
          where c.key = doomed.key and c.window_start = doomed.window_start returning 1)
        select count(*) as n from d`,
    );
}

/** Rate-limit windows that began before `before` (the back-off and known-network rows sit at the epoch). */
export const sweepOldCounterWindows = counters(
  (before) => sql`window_start > timestamptz 'epoch' and window_start < ${ts(before)}`,
);
/** Failed-sign-in back-off rows whose last failure is before `before`. */
export const sweepOldBackoffs = counters(
  (before) => sql`window_start = timestamptz 'epoch' and (key like 'known:%') = false
    and last_hit_at < ${ts(before)}`,
);
/** Known-network rows (rate-limits.repo.ts) last stamped before `before`. */
export const sweepOldKnownNetworks = counters(
  (before) => sql`window_start = timestamptz 'epoch' and (key like 'known:%') = true
    and last_hit_at < ${ts(before)}`,
);

/** The tables each refresh writes: on PGlite (no autovacuum) the sweep vacuums them every time. */
export const CHURNED_TABLES = ['refresh_tokens', 'sessions', 'rate_limit_counters'] as const;

/**
 * `VACUUM (ANALYZE)` of these tables, one at a time (PGlite: no autovacuum worker runs in its single
 * process, so without this the dead rows of every delete and update stay for good).
 */
export async function vacuumTables(db: DbOrTx, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
    await db.execute(sql.raw(`vacuum (analyze) ${table}`));
  }
}
