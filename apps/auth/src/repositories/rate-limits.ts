import { sql } from 'drizzle-orm';
import { type Db, type DbOrTx, queryRows } from '../db/client.ts';
import { hotQuery } from '../db/hot-query.ts';

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

export async function deleteOldCounters(db: DbOrTx, before: Date): Promise<void> {
  await db.execute(
    sql`delete from rate_limit_counters where window_start < ${before.toISOString()}::timestamptz`,
  );
}

// Back-off rows share the table: one row per key, `window_start` holding the time of the last
// failure and `count` the consecutive failures. A per-key advisory lock serialises the
// read-decide-write, so N parallel attempts see N distinct counts (PostgreSQL and PGlite alike).

/**
 * Reserves one attempt under progressive back-off. Returns 0 when admitted (the attempt is counted as
 * a failure until clearBackoff says otherwise), or the seconds the caller must wait.
 */
export async function reserveBackoffAttempt(
  db: Db,
  key: string,
  now: Date,
  freeAttempts: number,
  maxDelaySec: number,
): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
    const [row] = await queryRows<{ count: number; window_start: string | Date }>(
      tx,
      sql`select count, window_start from rate_limit_counters where key = ${key}`,
    );
    const failures = row ? Number(row.count) : 0;
    if (row && failures >= freeAttempts) {
      const delaySec = Math.min(2 ** Math.min(failures - freeAttempts, 30), maxDelaySec);
      const until = new Date(row.window_start).getTime() + delaySec * 1000;
      if (now.getTime() < until) return Math.max(1, Math.ceil((until - now.getTime()) / 1000));
    }
    if (row)
      await tx.execute(
        sql`update rate_limit_counters set count = count + 1, window_start = ${now.toISOString()}::timestamptz where key = ${key}`,
      );
    else
      await tx.execute(
        sql`insert into rate_limit_counters (key, window_start, count) values (${key}, ${now.toISOString()}::timestamptz, 1)`,
      );
    return 0;
  });
}

/** Forgets the failures of a key (after a successful sign-in). */
export async function clearBackoff(db: DbOrTx, key: string): Promise<void> {
  await db.execute(sql`delete from rate_limit_counters where key = ${key}`);
}
