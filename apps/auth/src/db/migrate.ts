import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';
import type { Database } from './client.ts';
import { MIGRATIONS_TABLE, prepareNamespace, type RunSql } from './namespace.ts';

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * The advisory-lock key every instance migrating one PostgreSQL database agrees on (a fixed 64-bit
 * number: "namaa-mi" in ASCII). Advisory locks are per database, so other databases are not affected.
 */
export const MIGRATION_LOCK_KEY = 0x6e616d61612d6d69n;

/**
 * Applies the drizzle-kit migrations; the same SQL for PGlite and PostgreSQL. `folder` is for the
 * upgrade tests, which migrate to an earlier point first.
 *
 * On PostgreSQL, several instances may start at once on a fresh database (a rolling deploy, a
 * scaled service): drizzle's migrator creates its bookkeeping table and applies the SQL without any
 * lock, so two of them race (`relation "__drizzle_migrations" already exists`). Migrating therefore
 * happens on one dedicated connection holding a session advisory lock: the others wait for it, then
 * find every migration applied and do nothing. The connection is discarded afterwards (the lock
 * goes with it even if the unlock is never reached), and has no statement timeout: a waiting
 * instance must not give up after the pool's 10 s, nor a long migration be cut off.
 *
 * Before the migrator, prepareNamespace (namespace.ts) creates the schema the tables live in and
 * moves an installation of an earlier release (tables in `public`) into it; drizzle's bookkeeping
 * table is kept in that schema too.
 */
export async function migrate(database: Database, folder = migrationsFolder): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const config = {
    migrationsFolder: folder,
    migrationsSchema: database.namespace,
    migrationsTable: MIGRATIONS_TABLE,
  };
  if (database.kind === 'pglite') {
    // One process per data directory (data-dir-lock.ts): nothing to race with.
    const client = (database.db as unknown as { $client: PGlite }).$client;
    await prepareNamespace(
      async (text, params) => (await client.query(text, params)).rows as Awaited<ReturnType<RunSql>>,
      database.namespace,
      migrations,
    );
    // biome-ignore lint/suspicious/noExplicitAny: the two drivers' migrators take their own db types
    await migratePglite(database.db as any, config);
    return;
  }
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('set statement_timeout = 0');
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await prepareNamespace(
      async (text, params) => (await client.query(text, params)).rows,
      database.namespace,
      migrations,
    );
    await migratePg(drizzlePg(client), config);
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    // Destroyed, not returned to the pool: its session settings (and, after a failure, perhaps its
    // lock) must not serve a request.
    client.release(broken ?? true);
  }
}
