import { sql } from 'drizzle-orm';
import { type Db, type DbOrTx, queryRows } from './client.ts';
import { hotQuery, rowFromJson } from './hot-query.ts';
import { users } from './schema.ts';
import type { UserRow } from './users.repo.ts';

/**
 * Fixed-window counters, incremented atomically by one upsert for all keys of a request, so
 * concurrent requests can never both slip under the limit. Returns each key's count after the hit.
 */
export async function hitCounters(db: Db, keys: string[], windowStart: Date): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  // A prepared statement per key count (a request has 1–3 keys): planned once, not per request.
  const values = keys.map((_, i) => `($${i + 2}::text, $1::timestamptz, 1)`).join(', ');
  const rows = await hotQuery<{ key: string; count: number }>(
    db,
    `namaa_hit_counters_${'k'.repeat(keys.length)}`,
    `insert into rate_limit_counters (key, window_start, count) values ${values}
    on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
    returning key, count`,
    [windowStart.toISOString(), ...keys],
  );
  return new Map(rows.map((r) => [r.key, Number(r.count)]));
}

/**
 * The counts of these keys in a window, without counting anything (a key not hit yet is absent).
 * One statement, as hitCounters, so a caller that only looks costs the same round trip as one that
 * counts (sign-up's answer must not be timed apart; see features/signup/signup.ts).
 */
export async function readCounters(db: Db, keys: string[], windowStart: Date): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const list = keys.map((_, i) => `$${i + 2}::text`).join(', ');
  const rows = await hotQuery<{ key: string; count: number }>(
    db,
    `namaa_read_counters_${'k'.repeat(keys.length)}`,
    `select key, count from rate_limit_counters where window_start = $1::timestamptz and key in (${list})`,
    [windowStart.toISOString(), ...keys],
  );
  return new Map(rows.map((r) => [r.key, Number(r.count)]));
}

// A floor (core/rate-limit.ts Limit.floor) is one row per key at the epoch, as a back-off is, with
// `last_hit_at` the time of the last hit counted. The hit is ONE upsert: ON CONFLICT locks the row
// and evaluates the WHERE on its latest version, so of two parallel hits within the gap one is taken.
// `prev` reads the row as the statement found it, for the refusal's Retry-After.
export const HIT_FLOOR_SQL = `with prev as (
    select last_hit_at from rate_limit_counters where key = $1::text and window_start = timestamptz 'epoch'),
  hit as (
    insert into rate_limit_counters as c (key, window_start, count, last_hit_at)
    values ($1::text, timestamptz 'epoch', 1, $2::timestamptz)
    on conflict (key, window_start) do update set count = c.count + 1, last_hit_at = $2::timestamptz
      where not $4::boolean or c.last_hit_at is null
        or c.last_hit_at + $3::int * interval '1 second' <= $2::timestamptz
    returning 1)
  select exists (select 1 from hit) as taken, (select last_hit_at from prev) as last`;

/**
 * Counts a hit on a floor `gapSec` long: taken when the last one counted is at least that long ago,
 * or always when `refuse` is false (the hit is then stamped whatever the last). Returns whether it
 * was taken and the last hit before it.
 */
export async function hitFloor(
  db: Db,
  key: string,
  now: Date,
  gapSec: number,
  refuse: boolean,
): Promise<{ taken: boolean; last: Date | undefined }> {
  const [row] = await hotQuery<{ taken: boolean | string; last: string | Date | null }>(
    db,
    'namaa_hit_floor',
    HIT_FLOOR_SQL,
    [key, now.toISOString(), String(gapSec), String(refuse)],
  );
  return {
    taken: row?.taken === true || row?.taken === 't',
    last: row?.last ? new Date(row.last) : undefined,
  };
}

/** A floor's last hit, counting nothing (one statement, as hitFloor: see readCounters). */
export async function readFloor(db: Db, key: string): Promise<Date | undefined> {
  const [row] = await hotQuery<{ last: string | Date | null }>(
    db,
    'namaa_read_floor',
    `select last_hit_at as last from rate_limit_counters where key = $1::text and window_start = timestamptz 'epoch'`,
    [key],
  );
  return row?.last ? new Date(row.last) : undefined;
}

/** How long a network stays known to an account after a successful password sign-in from it. */
export const KNOWN_NETWORK_DAYS = 30;
const knownSince = (now: Date) => new Date(now.getTime() - KNOWN_NETWORK_DAYS * 86400_000);

// Back-off rows share the table: one row per key at window_start = the epoch, `count` holding the
// consecutive failures and `last_hit_at` the time of the last one. The reservation is ONE prepared
// upsert: ON CONFLICT locks the row and evaluates the WHERE on its latest version, so N parallel
// attempts see N distinct counts (PostgreSQL and PGlite alike) — no transaction, no advisory lock.
// The failure counts until clearBackoff (folded into the sign-in's session statement) forgets it.
//
// A password sign-in's gate in ONE prepared statement: the per-IP and per-account window counters
// (a null key is a disabled limit: not counted) and, only when both are within their limits, the
// back-off reservation; and the account look-up (by email, null to skip), read in the same
// round trip. Same rows, same atomicity, one statement instead of three.
// A network the account signed in from within KNOWN_NETWORK_DAYS (its `known:` row, $11, stamped by
// the session statement) skips the per-account window: an attacker filling that window elsewhere
// cannot lock the owner out; the per-IP window and the back-off still apply to it.
export const SIGNIN_GATE_SQL = `with known as (
    select 1 from rate_limit_counters
    where key = $11::text and window_start = timestamptz 'epoch' and last_hit_at > $12::timestamptz),
  hits as (
    insert into rate_limit_counters (key, window_start, count)
    select k, $3::timestamptz, 1
    from unnest(array[$1::text, case when exists (select 1 from known) then null else $2::text end]) as k
    where k is not null
    on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
    returning key, count),
  over as (
    select key from hits
    where (key = $1::text and count > $4::int) or (key = $2::text and count > $5::int)),
  reserved as (
    insert into rate_limit_counters as c (key, window_start, count, last_hit_at)
    select $6::text, timestamptz 'epoch', 1, $7::timestamptz
    where $6::text is not null and not exists (select 1 from over)
    on conflict (key, window_start) do update set count = c.count + 1, last_hit_at = $7::timestamptz
      where c.count < $8::int or c.last_hit_at is null
        or c.last_hit_at + least(power(2, least(c.count - $8::int, 30)), $9::int) * interval '1 second'
          <= $7::timestamptz
    returning 1)
  select (select array_agg(key) from over) as over, exists (select 1 from reserved) as reserved,
    (select row_to_json(u) from users u where u.email = $10::text) as u`;

export type SigninGate = {
  ipKey: string | null;
  accountKey: string | null;
  windowStart: Date;
  ipLimit: number;
  accountLimit: number;
  backoffKey: string | null;
  now: Date;
  freeAttempts: number;
  maxDelaySec: number;
  /** The account to look up (null: none, e.g. an invalid address). */
  email: string | null;
  /** This network's known-network key for the account (null: no per-account window). */
  knownKey: string | null;
};

/**
 * Counts a sign-in against its window limits and, when within them, reserves a back-off attempt.
 * Returns the keys over their limit (the reservation is then not made), whether it was made, and the
 * account with that email.
 */
export async function signinGate(
  db: Db,
  g: SigninGate,
): Promise<{ over: string[]; reserved: boolean; user: UserRow | undefined }> {
  const [row] = await hotQuery<{
    over: string[] | string | null;
    reserved: boolean;
    u: Record<string, unknown> | string | null;
  }>(db, 'namaa_signin_gate', SIGNIN_GATE_SQL, [
    g.ipKey,
    g.accountKey,
    g.windowStart.toISOString(),
    String(g.ipLimit),
    String(g.accountLimit),
    g.backoffKey,
    g.now.toISOString(),
    String(g.freeAttempts),
    String(g.maxDelaySec),
    g.email,
    g.knownKey,
    knownSince(g.now).toISOString(),
  ]);
  const raw = row?.u;
  const over = row?.over ?? [];
  return {
    // PGlite's EXECUTE path hands arrays back in PostgreSQL's text form ({a,b}); keys hold no commas or quotes.
    over:
      typeof over === 'string'
        ? over
            .replace(/^\{|\}$/g, '')
            .split(',')
            .filter(Boolean)
        : over,
    reserved: row?.reserved === true || (row?.reserved as unknown) === 't',
    user: raw ? rowFromJson(users, typeof raw === 'string' ? JSON.parse(raw) : raw) : undefined,
  };
}

/**
 * Reserves one attempt on a back-off key on its own (the same upsert as the sign-in gate's
 * `reserved` step): counted as a failure until clearBackoff forgets it. Returns the streak length
 * including this attempt, or undefined when the key is still waiting out its back-off.
 */
export async function reserveBackoff(
  db: DbOrTx,
  key: string,
  now: Date,
  freeAttempts: number,
  maxDelaySec: number,
): Promise<number | undefined> {
  const [row] = await queryRows<{ count: number }>(
    db,
    sql`insert into rate_limit_counters as c (key, window_start, count, last_hit_at)
      values (${key}, timestamptz 'epoch', 1, ${now.toISOString()}::timestamptz)
      on conflict (key, window_start) do update set count = c.count + 1,
        last_hit_at = ${now.toISOString()}::timestamptz
        where c.count < ${freeAttempts}::int or c.last_hit_at is null
          or c.last_hit_at + least(power(2, least(c.count - ${freeAttempts}::int, 30)), ${maxDelaySec}::int)
            * interval '1 second' <= ${now.toISOString()}::timestamptz
      returning count`,
  );
  return row ? Number(row.count) : undefined;
}

/** The seconds a refused back-off reservation must wait (read on the rare refused path only). */
export async function backoffWait(db: Db, key: string, now: Date, freeAttempts: number, maxDelaySec: number) {
  const [row] = await queryRows<{ count: number; last_hit_at: string | Date | null }>(
    db,
    sql`select count, last_hit_at from rate_limit_counters
      where key = ${key} and window_start = timestamptz 'epoch'`,
  );
  if (!row?.last_hit_at) return 1;
  const delaySec = Math.min(2 ** Math.min(Number(row.count) - freeAttempts, 30), maxDelaySec);
  const until = new Date(row.last_hit_at).getTime() + delaySec * 1000;
  return Math.max(1, Math.ceil((until - now.getTime()) / 1000));
}

/** Forgets the failures of a key (after a successful sign-in). */
export async function clearBackoff(db: DbOrTx, key: string): Promise<void> {
  await db.execute(sql`delete from rate_limit_counters where key = ${key}`);
}

/** The first string after every string that starts with `prefix`, in byte order ("a:" → "a;"). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * Deletes the counters with one of `exact` keys or a key starting with one of `prefixes` (an
 * erasure: core/rate-limit.ts rateLimitKeysNaming). Each prefix is a range of the primary key, read
 * through its index because `key` sorts in byte order (collation "C", migration 0015).
 */
export async function deleteCounters(
  db: DbOrTx,
  keys: { exact: string[]; prefixes: string[] },
): Promise<number> {
  const conditions = [
    ...(keys.exact.length > 0
      ? [
          sql`key in (${sql.join(
            keys.exact.map((k) => sql`${k}`),
            sql`, `,
          )})`,
        ]
      : []),
    ...keys.prefixes.filter((p) => p.length > 0).map((p) => sql`(key >= ${p} and key < ${prefixEnd(p)})`),
  ];
  if (conditions.length === 0) return 0;
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`with d as (delete from rate_limit_counters where ${sql.join(conditions, sql` or `)} returning 1)
      select count(*) as n from d`,
  );
  return Number(rows[0]?.n ?? 0);
}
