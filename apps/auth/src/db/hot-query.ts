import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from './client.ts';

/**
 * The hot paths (refresh, GET /user) run ONE hand-written statement straight on the driver behind
 * Drizzle (`db.$client`: a pg Pool or a PGlite instance), as a PREPARED statement. Measured on this
 * machine (bench/auth-hot-paths.ts): planning the refresh statement costs PGlite ~3 ms of CPU per
 * call, executing a prepared plan ~1 ms; Drizzle's builder adds a few hundred µs per query.
 * - PostgreSQL: a named statement, so each pooled connection parses and plans it once.
 * - PGlite (one session for the process): PREPARE once, then EXECUTE. PGlite's query API binds
 *   parameters only for unnamed statements, so EXECUTE carries them as literals, quoted by the pg
 *   driver's own `escapeLiteral` (doubles quotes, E'' form for backslashes); NUL is refused (no
 *   PostgreSQL text can hold it). Server-made values (uuids, hashes, timestamps) skip the escaping.
 * Use only outside transactions (the database handle, never a tx).
 */
type PgliteClient = {
  exec(sql: string): Promise<Array<{ rows: Record<string, unknown>[] }>>;
};

const PLAIN = /^[A-Za-z0-9_:.+-]{0,256}$/;
const SAFE_NAME = /^[a-z_]{1,63}$/;

function literal(value: string | null): string {
  if (value === null) return 'null';
  if (PLAIN.test(value)) return `'${value}'`;
  if (value.includes('\0')) throw Object.assign(new Error('invalid byte sequence: 0x00'), { code: '22021' });
  return pg.escapeLiteral(value);
}

const prepared = new WeakMap<object, Map<string, Promise<unknown>>>();

export async function hotQuery<T>(
  db: Db,
  name: string,
  text: string,
  params: Array<string | null>,
): Promise<T[]> {
  if (!SAFE_NAME.test(name)) throw new Error('hotQuery: bad statement name');
  const client = (db as unknown as { $client: pg.Pool | PgliteClient }).$client;
  if (client instanceof pg.Pool) return (await client.query({ name, text, values: params })).rows as T[];
  let statements = prepared.get(client);
  if (!statements) {
    statements = new Map();
    prepared.set(client, statements);
  }
  let ready = statements.get(name);
  if (!ready) {
    ready = client.exec(`prepare ${name} as ${text}`);
    statements.set(name, ready);
    ready.catch(() => statements.delete(name)); // e.g. database closed: prepare again next time
  }
  await ready;
  const args = params.length > 0 ? `(${params.map(literal).join(', ')})` : '';
  const [result] = await client.exec(`execute ${name}${args}`);
  return (result?.rows ?? []) as T[];
}

/**
 * Maps a `row_to_json` object (snake_case column names, timestamps as ISO strings, jsonb inline) to
 * the same shape Drizzle's select returns for `table` (camelCase keys, Date objects), using the
 * schema's own column mappers, so callers cannot tell which path loaded the row.
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): T['$inferSelect'] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = json[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T['$inferSelect'];
}
