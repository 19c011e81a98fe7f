import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import { type Db, isDatabaseUnavailable } from './client.ts';

/**
 * The hot paths (refresh, GET /user, the sign-in gate and session) run ONE hand-written statement
 * straight on the driver behind Drizzle (`db.$client`: a pg Pool or a PGlite instance), as a PREPARED
 * statement. Measured on this machine (bench/auth-hot-paths.ts): planning the refresh statement costs
 * PGlite ~3 ms of CPU per call, executing a prepared plan ~0.5 ms; Drizzle's builder adds a few hundred
 * µs per query. Use only outside transactions (the database handle, never a tx).
 *
 * Group commit. Hot statements issued while the event loop is busy are queued and, on the next turn
 * (setImmediate, after the poll phase has read every request that arrived), sent as ONE
 * multi-statement query: PostgreSQL runs that as one implicit transaction with one commit and one
 * round trip. Every statement still runs on its own, in order, and sees the ones before it, exactly
 * as if they ran one after another; each response is sent only after the shared commit. If any
 * statement fails, the batch rolls back as a whole and each statement is re-run alone, so every
 * caller gets its own result or its own error (when the database itself is gone, every caller gets
 * that error instead: a batch whose answer was lost may have committed). A batch of one runs alone.
 * Measured (refresh under 32 connections, bench/auth-throughput.ts): PGlite, whose commit and call
 * into WebAssembly cost as much as the rotation itself, went from ~950/s to ~2,450/s.
 * - PGlite (one session for the process): PREPARE once, then EXECUTE. PGlite's query API binds
 *   parameters only for unnamed statements, so EXECUTE carries them as literals, quoted by the pg
 *   driver's own `escapeLiteral` (doubles quotes, E'' form for backslashes); NUL is refused (no
 *   PostgreSQL text can hold it). Server-made values (uuids, hashes, timestamps) skip the escaping.
 * - PostgreSQL: alone, a named statement over the extended protocol (each pooled connection parses
 *   and plans it once). A batch takes one pooled connection, PREPAREs there what it lacks (under a
 *   `_b` name, apart from the driver's own) and sends the EXECUTEs as one simple query. Up to
 *   POSTGRES_BATCHES_IN_FLIGHT batches run at once; statements issued meanwhile wait for the next.
 */
type PgliteClient = {
  exec(sql: string): Promise<Array<{ rows: Record<string, unknown>[] }>>;
};

type Rows = Record<string, unknown>[];
type Job = {
  name: string;
  text: string;
  params: Array<string | null>;
  /** The parameters as SQL literals, `(…)` or '' (computed up front: a NUL fails only its caller). */
  literals: string;
  resolve: (rows: Rows) => void;
  reject: (err: unknown) => void;
};
type Engine = {
  /** Batches in flight at once: PGlite has one session; PostgreSQL a pool of connections. */
  concurrency: number;
  alone(job: Job): Promise<Rows>;
  /** The rows of each job, in order; throws when any statement failed (nothing was committed). */
  batch(jobs: Job[]): Promise<Rows[]>;
};

/** Upper bound on statements per batch (bounds the time one batch holds PGlite or its connection). */
const MAX_BATCH = 64;
/**
 * PostgreSQL batches in flight at once (the pool holds 10 connections by default). More than one, so
 * a lock wait cannot stall every hot query; few, so batches stay large. Refresh under 32 connections
 * (bench/auth-throughput.ts, runs vary ±10 %): 1 in flight 3,280–3,460/s, 2 3,020–3,540/s, 4 3,040/s.
 */
const POSTGRES_BATCHES_IN_FLIGHT = 2;

class StatementBatcher {
  private queue: Job[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly engine: Engine;

  constructor(engine: Engine) {
    this.engine = engine;
  }

  run(job: Omit<Job, 'resolve' | 'reject'>): Promise<Rows> {
    return new Promise<Rows>((resolve, reject) => {
      this.queue.push({ ...job, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.engine.concurrency) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight++;
    try {
      const batch = this.queue.splice(0, MAX_BATCH);
      if (batch.length === 1) await this.runAlone(batch[0] as Job);
      else if (batch.length > 1) {
        let results: Rows[] | undefined;
        try {
          results = await this.engine.batch(batch);
        } catch (err) {
          // Database gone (connection lost, closed, timed out): the batch may even have committed
          // before the answer was lost, so nothing is re-run; every caller gets the error (→ 503),
          // as a single statement would.
          if (isDatabaseUnavailable(err)) for (const job of batch) job.reject(err);
          // A statement failed: the server rolled the batch back, so each runs on its own for its
          // own outcome.
          else for (const job of batch) await this.runAlone(job);
        }
        if (results) for (const [i, job] of batch.entries()) job.resolve(results[i] ?? []);
      }
    } finally {
      this.inFlight--;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async runAlone(job: Job): Promise<void> {
    try {
      job.resolve(await this.engine.alone(job));
    } catch (err) {
      job.reject(err);
    }
  }
}

function pgliteEngine(client: PgliteClient): Engine {
  const prepared = new Map<string, Promise<unknown>>();
  const prepare = (job: Job) => {
    let ready = prepared.get(job.name);
    if (!ready) {
      ready = client.exec(`prepare ${job.name} as ${job.text}`);
      prepared.set(job.name, ready);
      ready.catch(() => prepared.delete(job.name)); // e.g. database closed: prepare again next time
    }
    return ready;
  };
  const execute = (job: Job) => `execute ${job.name}${job.literals}`;
  return {
    concurrency: 1,
    async alone(job) {
      await prepare(job);
      const [result] = await client.exec(execute(job));
      return result?.rows ?? [];
    },
    async batch(jobs) {
      await Promise.all(jobs.map(prepare));
      const results = await client.exec(jobs.map(execute).join(';\n'));
      return jobs.map((_, i) => results[i]?.rows ?? []);
    },
  };
}

function postgresEngine(pool: pg.Pool): Engine {
  // Statement names PREPAREd (by SQL, `<name>_b`) on each pooled connection.
  const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();
  return {
    // A few batches at once, so one statement waiting on a row lock held elsewhere (another
    // instance's transaction) delays only its own batch, not every hot query of this process.
    concurrency: POSTGRES_BATCHES_IN_FLIGHT,
    async alone(job) {
      return (await pool.query({ name: job.name, text: job.text, values: job.params })).rows;
    },
    async batch(jobs) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        let names = preparedOn.get(client);
        if (!names) {
          names = new Set();
          preparedOn.set(client, names);
        }
        for (const job of jobs)
          if (!names.has(job.name)) {
            await client.query(`prepare ${job.name}_b as ${job.text}`);
            names.add(job.name);
          }
        const result = (await client.query(
          jobs.map((job) => `execute ${job.name}_b${job.literals}`).join(';\n'),
        )) as unknown as pg.QueryResult | pg.QueryResult[];
        const results = Array.isArray(result) ? result : [result];
        if (results.length !== jobs.length)
          throw new Error('hotQuery: batch answered the wrong number of results');
        return results.map((r) => r.rows);
      } catch (err) {
        // A lost connection goes back to the pool as broken (discarded), never reused.
        if (isDatabaseUnavailable(err)) broken = err as Error;
        throw err;
      } finally {
        client.release(broken);
      }
    },
  };
}

const PLAIN = /^[A-Za-z0-9_:.+-]{0,256}$/;
const SAFE_NAME = /^[a-z_]{1,63}$/;

function literal(value: string | null): string {
  if (value === null) return 'null';
  if (PLAIN.test(value)) return `'${value}'`;
  if (value.includes('\0')) throw Object.assign(new Error('invalid byte sequence: 0x00'), { code: '22021' });
  return pg.escapeLiteral(value);
}

const batchers = new WeakMap<object, StatementBatcher>();

export async function hotQuery<T>(
  db: Db,
  name: string,
  text: string,
  params: Array<string | null>,
): Promise<T[]> {
  if (!SAFE_NAME.test(name)) throw new Error('hotQuery: bad statement name');
  const client = (db as unknown as { $client: pg.Pool | PgliteClient }).$client;
  const literals = params.length > 0 ? `(${params.map(literal).join(', ')})` : '';
  let batcher = batchers.get(client);
  if (!batcher) {
    batcher = new StatementBatcher(client instanceof pg.Pool ? postgresEngine(client) : pgliteEngine(client));
    batchers.set(client, batcher);
  }
  return (await batcher.run({ name, text, params, literals })) as T[];
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
