/**
 * Every table lives in one dedicated schema, the namespace (DB_NAMESPACE, `auth` by default, as in
 * GoTrue), so the service can share a database that has its own `public.users`, and a Supabase
 * app's `references auth.users(id)` and row-level security policies calling `auth.uid()` work
 * unchanged next to PostgREST.
 *
 * Mechanism: the tables in schema.ts stay unqualified and every connection runs with
 * `search_path = <namespace>` (PostgreSQL: the `options` startup parameter of each pooled
 * connection; PGlite: a start parameter of its one session). So drizzle's queries, the hand-written
 * hot-path SQL (hot-query.ts) and the migrations' DDL all resolve to the namespace without naming it,
 * and the schema is a run-time setting rather than baked into generated code. drizzle's migration
 * bookkeeping (`__drizzle_migrations`, by default in a schema of its own called `drizzle`) is kept in
 * the namespace too, so two namespaces in one database are two independent installations.
 * Consequences:
 * - Migration SQL must not name a schema: drizzle-kit writes foreign keys as `"public"."users"`; they
 *   are edited to `"users"` (test/db/namespace.test.ts fails on any `"public".` in a migration).
 * - The search path holds the namespace alone (pg_catalog is always searched): nothing of the
 *   service can fall through to a table of the same name in `public`.
 *
 * Releases before this one kept the tables in `public` and the bookkeeping in `drizzle`;
 * prepareNamespace() moves such an installation into the namespace in place (ALTER TABLE … SET
 * SCHEMA keeps every row, index, constraint and foreign key) before the migrations run.
 */

/** The namespace when DB_NAMESPACE is unset (GoTrue's default). */
export const DEFAULT_NAMESPACE = 'auth';

/** drizzle's migration bookkeeping table, kept in the namespace (migrate.ts). */
export const MIGRATIONS_TABLE = '__drizzle_migrations';

/** One migration as drizzle reads it from the folder (drizzle-orm/migrator's readMigrationFiles). */
export type MigrationFile = { sql: string[]; folderMillis: number };

/**
 * The tables our migrations recorded as applied up to `lastApplied` created (and did not drop):
 * what an installation of an earlier release has in `public`, read from the migrations themselves
 * so that it holds for whichever release it was.
 */
export function tablesCreatedBy(migrations: MigrationFile[], lastApplied: number): string[] {
  const tables = new Set<string>();
  for (const m of migrations) {
    if (m.folderMillis > lastApplied) break;
    for (const statement of m.sql) {
      for (const [, name] of statement.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?"([^"]+)"/gi))
        tables.add(name as string);
      for (const [, name] of statement.matchAll(/drop\s+table\s+(?:if\s+exists\s+)?"([^"]+)"/gi))
        tables.delete(name as string);
    }
  }
  return [...tables].sort();
}

/** `"name"`: the namespace is validated (config.ts dbNamespaceProblem), quoting is for keywords. */
export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * How the pg pool connects so that every connection starts with `search_path` = the namespace: the
 * `options` startup parameter. pg lets parameters in the URL override the pool's own settings, so
 * when DATABASE_URL carries `options` already, ours is appended there; otherwise (also for a
 * connection string WHATWG URL cannot parse, such as `postgresql://user@/db?host=/run/postgresql`)
 * it goes in the pool's settings.
 */
export function pgConnection(
  databaseUrl: string,
  namespace: string,
): { connectionString: string; options?: string } {
  const ours = `-c search_path=${namespace}`;
  let url: URL | undefined;
  try {
    url = new URL(databaseUrl);
  } catch {
    // not a WHATWG URL: pg's own parser reads it, and sets no `options` of its own
  }
  const own = url?.searchParams.get('options');
  if (!url || !own) return { connectionString: databaseUrl, options: ours };
  url.searchParams.set('options', `${own} ${ours}`);
  return { connectionString: url.href };
}

/** Runs one SQL statement (optionally with $n parameters) and returns its rows. */
export type RunSql = (text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

export type NamespaceOutcome = 'ready' | 'adopted';

/**
 * Gets the namespace ready for drizzle's migrator, in one transaction (on PostgreSQL the caller
 * holds the migration advisory lock): creates the schema; when our bookkeeping is not there yet but
 * an installation of an earlier release is (its tables in `public`, its bookkeeping in `drizzle`),
 * moves those tables (the ones its recorded migrations created) and the bookkeeping into the
 * namespace ('adopted'), so the migrator carries on where that release stopped. A `users` table in the namespace that we did not create (e.g. GoTrue's
 * own `auth.users`) is refused: the migrations would otherwise fail half-way or mix two services.
 * Tables of someone else in `public` are never touched: adoption needs our bookkeeping row AND all
 * of our tables there.
 */
export async function prepareNamespace(
  run: RunSql,
  namespace: string,
  migrations: MigrationFile[],
): Promise<NamespaceOutcome> {
  const ns = quoteIdent(namespace);
  await run('begin');
  try {
    await run(`create schema if not exists ${ns}`);
    const outcome = await adoptOrCheck(run, namespace, migrations);
    await run('commit');
    return outcome;
  } catch (err) {
    await run('rollback').catch(() => {});
    throw err;
  }
}

async function exists(run: RunSql, qualifiedName: string): Promise<boolean> {
  const rows = await run('select to_regclass($1) is not null as found', [qualifiedName]);
  return rows[0]?.found === true;
}

async function adoptOrCheck(
  run: RunSql,
  namespace: string,
  migrations: MigrationFile[],
): Promise<NamespaceOutcome> {
  const ns = quoteIdent(namespace);
  if (await exists(run, `${ns}.${MIGRATIONS_TABLE}`)) return 'ready';

  const tables = await publicLayoutTables(run, migrations);
  if (tables) {
    if (namespace !== 'public')
      for (const table of tables) await run(`alter table public.${quoteIdent(table)} set schema ${ns}`);
    await run(`alter table drizzle.${MIGRATIONS_TABLE} set schema ${ns}`);
    // drizzle's schema held nothing else of ours; drop it only if it is empty now.
    await run(
      `do $$ begin drop schema drizzle; exception when dependent_objects_still_exist then null; end $$`,
    );
    return 'adopted';
  }

  if (await exists(run, `${ns}.users`))
    throw new Error(
      `schema ${namespace} already holds a users table this service did not create (another auth service's?): set DB_NAMESPACE to a schema of its own`,
    );
  return 'ready';
}

/**
 * The tables to move when `public` holds an installation of ours from before namespaces: drizzle's
 * bookkeeping in `drizzle` records our first migration (its exact timestamp), and every table the
 * recorded migrations created is in `public`. Undefined when it is not ours. When the bookkeeping
 * is ours but tables are missing, refuse rather than start an empty installation beside the data.
 */
async function publicLayoutTables(run: RunSql, migrations: MigrationFile[]): Promise<string[] | undefined> {
  const first = migrations[0];
  if (!first || !(await exists(run, `drizzle.${MIGRATIONS_TABLE}`))) return undefined;
  const ours = await run(`select 1 from drizzle.${MIGRATIONS_TABLE} where created_at = $1 limit 1`, [
    first.folderMillis,
  ]);
  if (ours.length === 0) return undefined;
  const last = await run(`select max(created_at)::text as last from drizzle.${MIGRATIONS_TABLE}`);
  const tables = tablesCreatedBy(migrations, Number(last[0]?.last));
  const present = await run(
    `select tablename from pg_catalog.pg_tables where schemaname = 'public' and tablename = any($1::text[])`,
    [tables],
  );
  const missing = tables.filter((t) => !present.some((r) => r.tablename === t));
  if (missing.length > 0)
    throw new Error(
      `drizzle.${MIGRATIONS_TABLE} records this service's migrations but public lacks ${missing.join(', ')}: restore them (or remove that record) before upgrading`,
    );
  return tables;
}
