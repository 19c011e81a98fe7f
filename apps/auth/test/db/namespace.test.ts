// Issue #25: every table in a dedicated schema (DB_NAMESPACE, `auth` by default) with GoTrue's SQL
// helpers, drizzle's bookkeeping there too, nothing of ours in `public`, and a `public.users` of
// someone else left alone. On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dbNamespaceProblem } from '../../src/config.ts';
import { type Database, openDatabase, queryRows } from '../../src/db/client.ts';
import { migrate, migrationsFolder } from '../../src/db/migrate.ts';
import { pgConnection } from '../../src/db/namespace.ts';
import * as schema from '../../src/db/schema.ts';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.ts';

// A fresh database migrated from nothing: seconds when idle, far more on the loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

const TABLES = Object.values(schema as Record<string, unknown>)
  .filter((v): v is PgTable => is(v, PgTable))
  .map((t) => getTableName(t))
  .sort();

const opened: Database[] = [];
let fresh: FreshDatabase | undefined;
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close();
  await fresh?.drop();
  fresh = undefined;
});

/** PGlite in memory, or a fresh PostgreSQL database (one per test). */
async function open(namespace?: string): Promise<Database> {
  const url = process.env.DATABASE_URL;
  if (url && !fresh) fresh = await createFreshDatabase(url);
  const database = await openDatabase({ databaseUrl: fresh?.url, dataDir: 'memory://', namespace });
  opened.push(database);
  return database;
}

const rows = <T>(d: Database, q: ReturnType<typeof sql>) => queryRows<T>(d.db, q);

async function tablesIn(d: Database, schemaName: string): Promise<string[]> {
  const r = await rows<{ t: string }>(
    d,
    sql`select tablename as t from pg_catalog.pg_tables where schemaname = ${schemaName} order by 1`,
  );
  return r.map((x) => x.t);
}

async function functionsIn(d: Database, schemaName: string): Promise<string[]> {
  const r = await rows<{ f: string }>(
    d,
    sql`select p.proname as f from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        where n.nspname = ${schemaName} order by 1`,
  );
  return r.map((x) => x.f);
}

async function schemaExists(d: Database, name: string): Promise<boolean> {
  const r = await rows<{ n: number }>(
    d,
    sql`select count(*)::int as n from pg_catalog.pg_namespace where nspname = ${name}`,
  );
  return r[0]?.n === 1;
}

it('no migration names a schema (drizzle-kit writes "public"."users" in foreign keys: edit it to "users")', () => {
  for (const file of readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql'))) {
    const text = readFileSync(join(migrationsFolder, file), 'utf8');
    expect(text, file).not.toMatch(/"public"\.|\bpublic\./i);
  }
});

it('DB_NAMESPACE accepts lower-case SQL names and refuses the rest in one line', () => {
  for (const ok of ['auth', 'public', 'namaa_auth', '_x1']) expect(dbNamespaceProblem(ok)).toBeUndefined();
  expect(dbNamespaceProblem('Auth')).toMatch(/^DB_NAMESPACE: "Auth" is not a schema name/);
  expect(dbNamespaceProblem('auth; drop table users')).toMatch(/is not a schema name/);
  expect(dbNamespaceProblem('1auth')).toMatch(/is not a schema name/);
  expect(dbNamespaceProblem('a'.repeat(64))).toMatch(/is not a schema name/);
  expect(dbNamespaceProblem('')).toMatch(/is not a schema name/);
  expect(dbNamespaceProblem('line\nbreak')).toBe(
    'DB_NAMESPACE: "line\\nbreak" is not a schema name (lower-case letters, digits and _, not starting with a digit, at most 63)',
  );
  expect(dbNamespaceProblem('pg_auth')).toMatch(/reserved by PostgreSQL/);
  expect(dbNamespaceProblem('information_schema')).toMatch(/reserved by PostgreSQL/);
  expect(dbNamespaceProblem('drizzle')).toMatch(/reserved for the migration bookkeeping/);
});

it('the namespace travels as the startup option `options`, after any the operator gave in DATABASE_URL', () => {
  expect(pgConnection('postgres://u:p@db:5432/app', 'auth')).toEqual({
    connectionString: 'postgres://u:p@db:5432/app',
    options: '-c search_path=auth',
  });
  // pg would let the URL's `options` replace the pool's: ours joins the URL's.
  const merged = pgConnection('postgres://db/app?options=-c%20work_mem%3D8MB&sslmode=require', 'x');
  expect(merged.options).toBeUndefined();
  const url = new URL(merged.connectionString);
  expect(url.searchParams.get('options')).toBe('-c work_mem=8MB -c search_path=x');
  expect(url.searchParams.get('sslmode')).toBe('require');
  // A socket form WHATWG URL cannot parse is left to pg as it was.
  expect(pgConnection('postgresql://u@/app?host=/run/postgresql', 'auth')).toEqual({
    connectionString: 'postgresql://u@/app?host=/run/postgresql',
    options: '-c search_path=auth',
  });
});

describe('layout', () => {
  it('a fresh install keeps every table, the bookkeeping and the SQL helpers in auth, nothing in public', async () => {
    const d = await open();
    await migrate(d);
    expect(await tablesIn(d, 'auth')).toEqual([...TABLES, '__drizzle_migrations'].sort());
    expect(await tablesIn(d, 'public')).toEqual([]);
    expect(await functionsIn(d, 'auth')).toEqual(['email', 'jwt', 'role', 'uid']);
    // drizzle's default home for its bookkeeping is never created.
    expect(await schemaExists(d, 'drizzle')).toBe(false);
    // users keyed by id uuid, as `references auth.users(id)` expects.
    const key = await rows<{ column: string; type: string }>(
      d,
      sql`select a.attname as column, format_type(a.atttypid, a.atttypmod) as type
          from pg_catalog.pg_index i join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = 'auth.users'::regclass and i.indisprimary`,
    );
    expect(key).toEqual([{ column: 'id', type: 'uuid' }]);
    // The service's own connection resolves unqualified names there.
    expect((await rows<{ s: string }>(d, sql`select current_schema() as s`))[0]?.s).toBe('auth');
    // Migrating again finds nothing to do.
    await migrate(d);
    const applied = await rows<{ n: number }>(
      d,
      sql`select count(*)::int as n from auth.__drizzle_migrations`,
    );
    expect(applied[0]?.n).toBe(readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql')).length);
  });

  it('DB_NAMESPACE=namaa_auth puts everything there instead', async () => {
    const d = await open('namaa_auth');
    await migrate(d);
    expect(await tablesIn(d, 'namaa_auth')).toEqual([...TABLES, '__drizzle_migrations'].sort());
    expect(await functionsIn(d, 'namaa_auth')).toEqual(['email', 'jwt', 'role', 'uid']);
    expect(await schemaExists(d, 'auth')).toBe(false);
    expect(await tablesIn(d, 'public')).toEqual([]);
  });

  it("leaves someone else's public.users (and their drizzle bookkeeping) alone", async () => {
    const d = await open();
    // Another application's tables, made with drizzle too: its bookkeeping is in drizzle's default place.
    await d.db.execute(sql`create table public.users (id serial primary key, name text not null)`);
    await d.db.execute(sql`insert into public.users (name) values ('theirs')`);
    await d.db.execute(sql`create schema drizzle`);
    await d.db.execute(
      sql`create table drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
    );
    await d.db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('x', 1700000000000)`,
    );
    await migrate(d);
    expect(await tablesIn(d, 'public')).toEqual(['users']);
    expect(await rows(d, sql`select id, name from public.users`)).toEqual([{ id: 1, name: 'theirs' }]);
    expect(await tablesIn(d, 'drizzle')).toEqual(['__drizzle_migrations']);
    expect(await tablesIn(d, 'auth')).toEqual([...TABLES, '__drizzle_migrations'].sort());
  });

  it("refuses a namespace whose users table it did not create (e.g. GoTrue's own auth.users), changing nothing", async () => {
    const d = await open();
    await d.db.execute(sql`create schema if not exists auth`);
    await d.db.execute(sql`create table auth.users (id uuid primary key, instance_id uuid)`);
    await expect(migrate(d)).rejects.toThrow(
      "schema auth already holds a users table this service did not create (another auth service's?): set DB_NAMESPACE to a schema of its own",
    );
    expect(await tablesIn(d, 'auth')).toEqual(['users']);
  });
});
