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
 *
 * PGlite: group commit. PGlite runs one statement at a time on the event loop, and a commit plus
 * the call into WebAssembly cost about as much as the refresh rotation itself (measured: a refresh
 * statement alone ~450-620 µs, eight in one batch ~245 µs each). So hot statements issued while
 * the event loop is busy are queued and, on the next turn (setImmediate, after the poll phase has
 * read every request that arrived), sent as ONE multi-statement query: PostgreSQL runs that as one
 * implicit transaction, one commit. Every statement still runs alone in order, exactly as it
 * would one after another (PGlite has a single session); a response is sent only after the shared
 * commit. If any statement fails the batch rolls back as a whole and each statement is re-run on
 * its own, so every caller gets its own result or its own error.
 */
type PgliteClient = {
  exec(sql: string): Promise<Array<{ rows: Record<string, unknown>[] }>>;
};

type Rows = Record<string, unknown>[];
type Pending = { sql: string; resolve: (rows: Rows) => void; reject: (err: unknown) => void };

/** Upper bound on statements per batch (bounds the time the event loop spends in one call). */
const MAX_BATCH = 64;

class PgliteBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;
  private readonly client: PgliteClient;

  constructor(client: PgliteClient) {
    this.client = client;
  }

  run(sql: string): Promise<Rows> {
    return new Promise<Rows>((resolve, reject) => {
      this.queue.push({ sql, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      const batch = this.queue.splice(0, MAX_BATCH);
      if (batch.length === 1) await this.runAlone(batch[0] as Pending);
      else if (batch.length > 1) {
        let results: Array<{ rows: Rows }> | undefined;
        try {
          results = await this.client.exec(batch.map((p) => p.sql).join(';\n'));
        } catch {
          // Rolled back as a whole: run each on its own for its own outcome.
          for (const p of batch) await this.runAlone(p);
        }
        if (results) for (const [i, p] of batch.entries()) p.resolve(results[i]?.rows ?? []);
      }
    } finally {
      this.running = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async runAlone(p: Pending): Promise<void> {
    try {
      const [result] = await this.client.exec(p.sql);
      p.resolve(result?.rows ?? []);
    } catch (err) {
      p.reject(err);
    }
  }
}

const batchers = new WeakMap<object, PgliteBatcher>();

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
  let batcher = batchers.get(client);
  if (!batcher) {
    batcher = new PgliteBatcher(client);
    batchers.set(client, batcher);
  }
  return (await batcher.run(`execute ${name}${args}`)) as T[];
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
