import { sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from '../db/client.ts';

/**
 * Fixed-window counters, incremented atomically by one upsert for all keys of a request, so
 * concurrent requests can never both slip under the limit. Returns each key's count after the hit.
 */
export async function hitCounters(
  db: DbOrTx,
  keys: string[],
  windowStart: Date,
): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const values = sql.join(
    keys.map((k) => sql`(${k}, ${windowStart.toISOString()}::timestamptz, 1)`),
    sql`, `,
  );
  const rows = await queryRows<{ key: string; count: number }>(
    db,
    sql`
    insert into rate_limit_counters (key, window_start, count) values ${values}
    on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
    returning key, count`,
  );
  return new Map(rows.map((r) => [r.key, Number(r.count)]));
}

export async function deleteOldCounters(db: DbOrTx, before: Date): Promise<void> {
  await db.execute(
    sql`delete from rate_limit_counters where window_start < ${before.toISOString()}::timestamptz`,
  );
}
