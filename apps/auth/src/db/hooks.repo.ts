import { sql } from 'drizzle-orm';
import { type Db, queryRows } from './client.ts';

/**
 * Calls an operator's SQL hook function with the JSON payload, in a transaction of its own whose
 * statement_timeout bounds the call (GoTrue's 2 s), and returns what it answered. `functionName` is
 * the `"schema"."function"` config.ts built from HOOK_*_URI after checking both are plain
 * identifiers, so it is safe to splice; the payload is a bound parameter.
 */
export async function callHookFunction(
  db: Db,
  functionName: string,
  payload: string,
  timeoutMs: number,
): Promise<unknown> {
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${Math.floor(timeoutMs)}`));
    const rows = await queryRows<{ r: unknown }>(
      tx,
      sql`select ${sql.raw(functionName)}(${payload}::jsonb) as r`,
    );
    return rows[0]?.r;
  });
}
