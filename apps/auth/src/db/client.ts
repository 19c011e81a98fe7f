import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import type { Config } from '../config.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { DEFAULT_NAMESPACE, pgConnection, quoteIdent } from './namespace.ts';
import { createPgliteInChild, needsCreation } from './pglite-create.ts';
import { openDurablePglite } from './pglite-durable.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export type Database = {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The schema holding every table; each connection's search_path (db/namespace.ts). */
  namespace: string;
  /** Runs `select 1`; throws when the database is unreachable. */
  ping(): Promise<void>;
  /** The PostgreSQL pool's connections (for /metrics); undefined on PGlite (one in-process connection). */
  poolStats(): { total: number; idle: number; waiting: number; max: number } | undefined;
  /** memory:// only: the data directory as a tarball, checkpointed first (a copy to open others from). */
  snapshot?(): Promise<Blob>;
  close(): Promise<void>;
};

export type OpenDatabaseOptions = {
  databaseUrl?: string | undefined;
  /** Directory for the embedded database; 'memory://' keeps it in memory (tests). */
  dataDir: string;
  /** On-disk PGlite: make each commit durable (pglite-durable.ts). Default true; PGLITE_FSYNC. */
  fsync?: boolean;
  /** The embedded database's shared_buffers, e.g. '16MB' (PGLITE_SHARED_BUFFERS; PGlite's own default is 128MB). */
  sharedBuffers?: string;
  poolSize?: number;
  /** DB_NAMESPACE: the schema every table lives in (default `auth`, see namespace.ts). */
  namespace?: string | undefined;
  /** Create a new PGlite directory in this process (only the child of pglite-create.ts does). */
  createInProcess?: boolean;
  /** memory:// only: start from this snapshot() of another database instead of a new cluster. */
  fromSnapshot?: Blob;
};

/** The database the configuration names (the service and its CLI commands open the same one alike). */
export function databaseOptions(config: Config): OpenDatabaseOptions {
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    fsync: config.PGLITE_FSYNC,
    sharedBuffers: config.PGLITE_SHARED_BUFFERS,
    namespace: config.DB_NAMESPACE,
  };
}

/** PostgreSQL when a URL is given, otherwise the embedded PGlite in DATA_DIR/pglite. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      // Every pooled connection starts with search_path = the namespace (no extra round trip).
      ...pgConnection(options.databaseUrl, namespace),
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      // Bounded statements: a stuck lock must become an error (→ 503), not a hung request.
      statement_timeout: 10_000,
    });
    // An idle client losing its connection emits 'error' on the pool; without a listener the
    // process would crash. Requests see the failure on their own query and answer 503.
    pool.on('error', () => {});
    // A client checked out of the pool (e.g. inside a transaction) whose connection drops emits
    // 'error' on itself, where the pool's listener does not reach: unhandled, it would kill the
    // process. The query in flight fails on its own and the request answers 503; the pool then
    // discards the broken client and connects afresh.
    pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    return {
      db,
      kind: 'postgres',
      namespace,
      async ping() {
        await pool.query('select 1');
      },
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: pool.options.max ?? 10,
      }),
      async close() {
        // pool.end() waits for every checked-out client; one stuck on a dead connection must not
        // hang shutdown (SIGTERM has a 10 s budget), so give up waiting after 5 s.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          pool.end(),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, 5_000);
          }),
        ]);
        clearTimeout(timer);
      },
    };
  }
  const inMemory = options.dataDir.startsWith('memory://');
  let unlock = () => {};
  if (!inMemory) {
    mkdirSync(options.dataDir, { recursive: true });
    unlock = lockDataDir(options.dataDir);
  }
  let client: PGlite | undefined;
  try {
    const dir = join(options.dataDir, 'pglite');
    const sharedBuffers = options.sharedBuffers ?? '16MB';
    // The session's default search_path (a start parameter, so even a RESET keeps it). And PGlite
    // reserves PostgreSQL's default 128MB of shared buffers inside its WebAssembly memory, which the
    // process then holds for good; the data files also sit in the operating system's page cache, so
    // a small buffer cache keeps the process small at little cost (README, "Footprint").
    const extraParams = ['-c', `search_path=${namespace}`, '-c', `shared_buffers=${sharedBuffers}`];
    const startParams = [...PGlite.defaultStartParams, ...extraParams];
    // A new directory is created and migrated in a child process (its memory ends with it): pglite-create.ts.
    if (!inMemory && !options.createInProcess && needsCreation(dir))
      await createPgliteInChild(dir, {
        durable: options.fsync !== false,
        namespace,
        sharedBuffers,
      });
    client = inMemory
      ? await PGlite.create({ dataDir: options.dataDir, startParams, loadDataDir: options.fromSnapshot })
      : options.fsync === false
        ? await PGlite.create({ dataDir: dir, startParams })
        : await openDurablePglite(dir, extraParams);
    // The embedded database is ours alone: the schema exists from the start, migrated or not.
    await client.exec(`create schema if not exists ${quoteIdent(namespace)}`);
  } catch (err) {
    await client?.close().catch(() => {});
    unlock();
    throw err;
  }
  const pglite = client;
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    namespace,
    async ping() {
      await pglite.query('select 1');
    },
    poolStats: () => undefined,
    ...(inMemory
      ? {
          async snapshot() {
            await pglite.exec('checkpoint');
            return pglite.dumpDataDir('none');
          },
        }
      : {}),
    async close() {
      if (!pglite.closed) await pglite.close();
      unlock();
    },
  };
}

/** An error and its causes, outermost first (bounded: a cause cycle must not hang the caller). */
export function errorChain(err: unknown): Array<Record<string, unknown>> {
  const chain: Array<Record<string, unknown>> = [];
  let current: unknown = err;
  for (let i = 0; i < 5 && current && typeof current === 'object'; i++) {
    chain.push(current as Record<string, unknown>);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The PostgreSQL SQLSTATE of an error (drizzle wraps driver errors in `cause`). */
export function sqlState(err: unknown): string | undefined {
  for (const e of errorChain(err))
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}

export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}

/**
 * True when the error means "the database cannot serve us right now" (connection refused or lost,
 * server shutting down, PGlite closed, timeouts): those requests get 503 + Retry-After, never 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of errorChain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code))
      return true;
    // 08xxx connection exceptions, 57P0x operator intervention/shutdown, 53xxx insufficient resources,
    // 57014 statement timeout, 55P03 lock not available.
    if (/^(08|57P0|53)/.test(code) || code === '57014' || code === '55P03') return true;
    if (
      /PGlite is closed|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection.*(closed|terminated)|Cannot use a pool after calling end/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

/** Runs raw SQL and returns its rows (both drivers answer `{ rows }`). */
export async function queryRows<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
