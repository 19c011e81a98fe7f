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

/**
 * The tables of the layout before namespaces (migrations 0000–0002, all in `public`). Frozen: a
 * table added later never existed there, so it is not part of recognising an old installation.
 */
export const PUBLIC_LAYOUT_TABLES = [
  'audit_log_entries',
  'flow_state',
  'identities',
  'mail_outbox',
  'mfa_challenges',
  'mfa_factors',
  'one_time_tokens',
  'rate_limit_counters',
  'refresh_tokens',
  'server_secrets',
  'sessions',
  'signing_keys',
  'used_totp_codes',
  'users',
] as const;

/**
 * The `created_at` drizzle recorded for our first migration (0000_initial's `when` in the journal):
 * a bookkeeping row with it in `drizzle.__drizzle_migrations` says the tables in `public` are ours.
 */
export const FIRST_MIGRATION_MILLIS = 1795294565755;

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
 * moves those tables and the bookkeeping into the namespace ('adopted'), so the migrator carries on
 * where that release stopped. A `users` table in the namespace that we did not create (e.g. GoTrue's
 * own `auth.users`) is refused: the migrations would otherwise fail half-way or mix two services.
 * Tables of someone else in `public` are never touched: adoption needs our bookkeeping row AND all
 * of our tables there.
 */
export async function prepareNamespace(run: RunSql, namespace: string): Promise<NamespaceOutcome> {
  const ns = quoteIdent(namespace);
  await run('begin');
  try {
    await run(`create schema if not exists ${ns}`);
    const outcome = await adoptOrCheck(run, namespace);
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

async function adoptOrCheck(run: RunSql, namespace: string): Promise<NamespaceOutcome> {
  const ns = quoteIdent(namespace);
  if (await exists(run, `${ns}.${MIGRATIONS_TABLE}`)) return 'ready';

  if (await isPublicLayout(run)) {
    if (namespace !== 'public')
      for (const table of PUBLIC_LAYOUT_TABLES)
        await run(`alter table public.${quoteIdent(table)} set schema ${ns}`);
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

/** Our bookkeeping in `drizzle` (with our first migration) and every one of our tables in `public`. */
async function isPublicLayout(run: RunSql): Promise<boolean> {
  if (!(await exists(run, `drizzle.${MIGRATIONS_TABLE}`))) return false;
  const ours = await run(`select 1 from drizzle.${MIGRATIONS_TABLE} where created_at = $1 limit 1`, [
    FIRST_MIGRATION_MILLIS,
  ]);
  if (ours.length === 0) return false;
  const tables = await run(
    `select count(*)::int as n from pg_catalog.pg_tables where schemaname = 'public' and tablename = any($1::text[])`,
    [PUBLIC_LAYOUT_TABLES],
  );
  return tables[0]?.n === PUBLIC_LAYOUT_TABLES.length;
}
