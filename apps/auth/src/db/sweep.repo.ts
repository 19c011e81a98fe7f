import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from './client.ts';
import { REFRESHED_ON_SLACK_DAYS } from './sessions.repo.ts';

/**
 * The sweep's statements (core/sweep.ts runs them): each handles at most `limit` rows that are past
 * `before`, in one statement of its own (one short transaction), and says how many it deleted and
 * how many it looked at (a batch that looked at fewer than `limit` was the last one).
 *
 * Every one picks its rows with `FOR UPDATE SKIP LOCKED`: rows a request holds (a refresh rotating
 * a token, a verification consuming a link) are skipped, never waited for, and two instances sweeping
 * at once take disjoint rows. Every one reads through an index whose range holds only due rows, in
 * that index's order (so the plan is the index whatever the statistics say; test/db/plans.test.ts),
 * and a batch costs its own rows, not the table; the delete then finds them
 * by primary key (`= any(array(…))`: an index look-up whatever the planner thinks of the batch size).
 */
export type SweepStatement = (
  db: DbOrTx,
  limit: number,
  before: Date,
  /**
   * Keyset statements only: where the previous batch of this run stopped (its last key). Deleted
   * rows leave dead entries at the head of the index until vacuum; starting each batch at the last
   * key instead of the index's head keeps a batch's cost its own rows on a big backlog (measured:
   * with 200,000 rows of 300,000 swept, finding the next 50 took 91 ms and 977 buffers from the head).
   * A row skipped while locked, behind the cursor, waits for the next run.
   */
  from?: Date,
) => Promise<SweepBatch>;

export type SweepBatch = { deleted: number; scanned: number; last?: Date | undefined };

async function counted(db: DbOrTx, query: SQL): Promise<SweepBatch> {
  const [row] = await queryRows<{ deleted: number | string; scanned: number | string; last?: unknown }>(
    db,
    query,
  );
  const last = row?.last == null ? undefined : new Date(row.last as string | Date);
  return { deleted: Number(row?.deleted ?? 0), scanned: Number(row?.scanned ?? 0), last };
}

/** `and <column> >= from` when the batch continues a run (keyset), else nothing. */
const resumeAt = (column: SQL, from: Date | undefined) => (from ? sql` and ${column} >= ${ts(from)}` : sql``);

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** Deletes the rows of `table` that `pick` selects (ids, locked with SKIP LOCKED). */
function deleteBy(table: string, pick: (limit: number, before: Date) => SQL): SweepStatement {
  const t = sql.raw(table);
  return (db, limit, before) =>
    counted(
      db,
      sql`with d as (delete from ${t} where id = any(array(${pick(limit, before)})) returning 1)
        select count(*) as deleted, count(*) as scanned from d`,
    );
}

/**
 * Rotated refresh tokens, by the time of their rotation (updated_at = revoked_at). The parent of a
 * session's active token stays whatever its age: presenting it answers the active token (the client
 * that lost the answer of its last refresh), which the reuse rules need (features/session/refresh.ts).
 * Such a kept parent gets its updated_at moved to now, so the sweep does not read it again until
 * the retention has passed once more (without that, every sweep would re-read the kept parent of
 * every idle session).
 */
export const sweepRevokedRefreshTokens: SweepStatement = (db, limit, before) =>
  counted(
    db,
    sql`with batch as (
        select t.id, a.parent_hash is not null as keep
        from refresh_tokens t
        left join lateral (select a.parent_hash from refresh_tokens a
            where a.session_id = t.session_id and not a.revoked and a.parent_hash = t.token_hash limit 1) a on true
        where t.revoked and t.updated_at < ${ts(before)}
        order by t.updated_at
        limit ${limit} for update of t skip locked),
      d as (delete from refresh_tokens where id = any(array(select id from batch where not keep)) returning 1),
      k as (update refresh_tokens set updated_at = now()
        where id = any(array(select id from batch where keep)) returning 1)
      select (select count(*) from d) as deleted, (select count(*) from batch) as scanned`,
  );

/** Sessions begun before `before` (SESSIONS_TIMEBOX); their refresh tokens go with them (cascade). */
export const sweepTimeboxedSessions = deleteBy(
  'sessions',
  (limit, before) =>
    sql`select id from sessions where created_at < ${ts(before)}
      order by created_at limit ${limit} for update skip locked`,
);

/**
 * Sessions last refreshed before `before` (SESSIONS_INACTIVITY_TIMEOUT), found by sessions.refreshed_on
 * (indexing refreshed_at itself would turn every refresh's session update from a HOT update into one
 * that writes every index of the table). refreshed_on lags the last refresh by up to
 * REFRESHED_ON_SLACK_DAYS, so only sessions whose refreshed_on is that much further back are read:
 * all of them are inactive (none is read and kept), and a session goes up to a week and a day after
 * its cut-off. The refresh itself refuses it from the cut-off on (features/session/refresh.ts); the
 * sweep only reclaims the row.
 * Sessions begun before refreshed_on that were never refreshed since are found, as before it,
 * through their active refresh_tokens row (its updated_at is the session's last refresh).
 */
export const sweepInactiveSessions: SweepStatement = (db, limit, before) =>
  counted(
    db,
    sql`with by_day as (
        select id from sessions
        where refreshed_on < (${ts(before)} at time zone 'UTC')::date - ${REFRESHED_ON_SLACK_DAYS}::int
        order by refreshed_on limit ${limit} for update skip locked),
      by_row as (
        select t.session_id as id from refresh_tokens t
        where not t.revoked and t.updated_at < ${ts(before)}
        order by t.updated_at limit ${limit} for update of t skip locked),
      batch as (select id from by_day union all select id from by_row),
      d as (delete from sessions where id = any(array(select id from batch))
        and coalesce(refreshed_at, created_at) < ${ts(before)} returning 1)
      select (select count(*) from d) as deleted, (select count(*) from batch) as scanned`,
  );

/** Sessions past their `not_after` (GoTrue's column) before `before`. */
export const sweepNotAfterSessions = deleteBy(
  'sessions',
  (limit, before) =>
    sql`select id from sessions where not_after < ${ts(before)}
      order by not_after limit ${limit} for update skip locked`,
);

/** Rows of `table` whose `column` (indexed) is before `before`, in keyset batches. */
function byTime(table: string, column: string): SweepStatement {
  const t = sql.raw(table);
  const c = sql.raw(column);
  return (db, limit, before, from) =>
    counted(
      db,
      sql`with batch as (select id, ${c} as k from ${t} where ${c} < ${ts(before)}${resumeAt(c, from)}
          order by ${c} limit ${limit} for update skip locked),
        d as (delete from ${t} where id = any(array(select id from batch)) returning 1)
        select (select count(*) from d) as deleted, (select count(*) from batch) as scanned,
          (select max(k) from batch) as last`,
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
export const sweepOldMail = deleteBy(
  'mail_outbox',
  (limit, before) => sql`select id from mail_outbox where status in ('sent', 'failed')
    and created_at < ${ts(before)} order by created_at limit ${limit} for update skip locked`,
);

/**
 * Never-confirmed sign-ups (RETENTION_UNCONFIRMED_USERS): no confirmed address, never signed in, not
 * invited, not anonymous, and no confirmation asked for since `before` (a repeated sign-up or a
 * resend moves confirmation_sent_at). Read through the partial index of unconfirmed users in
 * creation order; every row a batch picks is deleted, so the next batch never reads it again. As
 * DELETE /account (account.repo.ts, eraseAccount): identities, sessions and tokens go by cascade,
 * and their audit rows stay without the IP address and the payload keys that can name a person.
 * Their mail (sent long ago, its body blanked) goes with the delivered-mail task: mail_outbox.user_id
 * has no index, and a scan of the outbox in every batch would cost more than the batch.
 */
export const sweepUnconfirmedUsers: SweepStatement = (db, limit, before, from) =>
  counted(
    db,
    sql`with batch as (
        select id, created_at from users
        where email_confirmed_at is null and phone_confirmed_at is null and invited_at is null
          and not is_anonymous and created_at < ${ts(before)}${resumeAt(sql`created_at`, from)}
          and coalesce(confirmation_sent_at, created_at) < ${ts(before)} and last_sign_in_at is null
        order by created_at limit ${limit} for update skip locked),
      d as (delete from users where id = any(array(select id from batch)) returning id),
      a as (update audit_log_entries set ip_address = null,
          payload = payload - array['user_email', 'email', 'phone', 'new_email', 'user_agent']::text[]
        where actor_id = any(array(select id from d)) returning 1)
      select (select count(*) from d) as deleted, (select count(*) from batch) as scanned,
        (select max(created_at) from batch) as last`,
  );

/** Rate-limit rows (primary key: key + window_start), by their row address while locked. */
function counters(where: (before: Date) => SQL, order: SQL): SweepStatement {
  return (db, limit, before) =>
    counted(
      db,
      sql`with d as (delete from rate_limit_counters where ctid = any(array(
          select ctid from rate_limit_counters where ${where(before)}
          order by ${order} limit ${limit} for update skip locked))
        returning 1)
        select count(*) as deleted, count(*) as scanned from d`,
    );
}

/** Rate-limit windows that began before `before` (the back-off and known-network rows sit at the epoch). */
export const sweepOldCounterWindows = counters(
  (before) => sql`window_start > timestamptz 'epoch' and window_start < ${ts(before)}`,
  sql`window_start`,
);
/** Failed-sign-in and MFA back-off rows (`backoff:…`) whose last failure is before `before`. */
export const sweepOldBackoffs = counters(
  (before) => sql`window_start = timestamptz 'epoch' and split_part(key, ':', 1) = 'backoff'
    and last_hit_at < ${ts(before)}`,
  sql`last_hit_at`,
);
/**
 * Mail and SMS floors (`email:floor:…`, `sms:floor:…`, core/rate-limit.ts) last hit before `before`:
 * the only rows at the epoch under those first words (their count windows are not at the epoch).
 */
export const sweepOldFloors = counters(
  (before) => sql`window_start = timestamptz 'epoch' and split_part(key, ':', 1) in ('email', 'sms')
    and last_hit_at < ${ts(before)}`,
  sql`last_hit_at`,
);
/** Known-network rows (`known:…`, rate-limits.repo.ts) last stamped before `before`. */
export const sweepOldKnownNetworks = counters(
  (before) => sql`window_start = timestamptz 'epoch' and split_part(key, ':', 1) = 'known'
    and last_hit_at < ${ts(before)}`,
  sql`last_hit_at`,
);

/** The tables each refresh writes: on PGlite (no autovacuum) the sweep vacuums them every time. */
export const CHURNED_TABLES = ['refresh_tokens', 'sessions', 'rate_limit_counters'] as const;

/**
 * `VACUUM` of these tables, one at a time, with `ANALYZE` when asked (PGlite: no autovacuum worker
 * runs in its single process, so without this the dead rows of every delete and update stay for
 * good, and the planner's statistics are never refreshed).
 */
export async function vacuumTables(
  db: DbOrTx,
  tables: readonly string[],
  options: { analyze: boolean },
): Promise<void> {
  for (const table of tables) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
    await db.execute(sql.raw(`vacuum ${options.analyze ? '(analyze) ' : ''}${table}`));
  }
}
