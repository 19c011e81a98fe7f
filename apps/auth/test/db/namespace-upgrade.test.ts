// Issue #25: an installation of a release before namespaces (every table in `public`, drizzle's
// bookkeeping in `drizzle`) moves into `auth` in place, without losing or changing a row, and its
// users keep their sessions: an old refresh token rotates, an old access token reads the user, the
// password signs in, the TOTP factor is still there. On PGlite (on disk) and on PostgreSQL when
// DATABASE_URL is set.
//
// The old installation is made with real data: the service runs once in a scratch namespace and
// goes through sign-up, TOTP, a PKCE recovery request and so on, filling every table; then the old
// layout is built exactly as that release built it (its migrations 0000–0002 run by drizzle's
// migrator with the default search_path and bookkeeping), the rows are copied into it and the
// scratch namespace is dropped.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createClient } from '@supabase/supabase-js';
import { getTableName, is, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { PgTable } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { generate } from 'otplib';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { refreshTokenSession } from '../../src/core/refresh-token.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import { openDatabase } from '../../src/db/client.ts';
import { migrate, migrationsFolder } from '../../src/db/migrate.ts';
import type { RunSql } from '../../src/db/namespace.ts';
import * as schema from '../../src/db/schema.ts';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.ts';
import { startTestServer, uniqueEmail } from '../support/test-server.ts';

const PASSWORD = 'Upgrade-Pass-7716';
const onPostgres = Boolean(process.env.DATABASE_URL);
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TABLES = Object.values(schema as Record<string, unknown>)
  .filter((v): v is PgTable => is(v, PgTable))
  .map((t) => getTableName(t))
  .sort();
/** Referenced tables before the ones that reference them (the copy keeps foreign keys checked). */
const FIRST = [
  'users',
  'sessions',
  'refresh_tokens',
  'identities',
  'mfa_factors',
  'mfa_challenges',
  'used_totp_codes',
];
const COPY_ORDER = [...FIRST, ...TABLES.filter((t) => !FIRST.includes(t))];

/** The migrations folder of the release before namespaces: every migration before the SQL helpers'. */
function releaseBeforeNamespaces(): string {
  const dir = mkdtempSync(join(tmpdir(), 'namaa-migrations-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalPath = join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const helpers = journal.entries.findIndex((e) => e.tag.endsWith('_auth_sql_helpers'));
  expect(helpers).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, helpers);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/** A raw session on the database with PostgreSQL's default search_path, as that release had. */
async function rawSession(where: { url?: string; dataDir?: string }) {
  if (where.url) {
    const client = new pg.Client({ connectionString: where.url });
    await client.connect();
    const run: RunSql = async (text, params) => (await client.query(text, params)).rows;
    return {
      run,
      migrateOld: (folder: string) => migratePg(drizzlePg(client), { migrationsFolder: folder }),
      close: () => client.end(),
    };
  }
  const client = await PGlite.create({ dataDir: join(where.dataDir as string, 'pglite') });
  const run: RunSql = async (text, params) =>
    (await client.query(text, params)).rows as Awaited<ReturnType<RunSql>>;
  return {
    run,
    migrateOld: (folder: string) => migratePglite(drizzlePglite(client), { migrationsFolder: folder }),
    close: () => client.close(),
  };
}

/**
 * The columns each table has in `schemaName` (later migrations add columns the old layout lacks),
 * in copy order; a table a later migration creates (recovery codes, …) is absent from the old layout
 * and so from the answer.
 */
async function columnsOf(run: RunSql, schemaName: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of COPY_ORDER) {
    const r = await run(
      `select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as cols
       from information_schema.columns where table_schema = '${schemaName}' and table_name = '${table}'`,
    );
    const cols = r[0]?.cols;
    if (typeof cols === 'string') out[table] = cols;
  }
  return out;
}

/**
 * Per table: row count and a digest of every row over the old layout's `columns`, so "no row lost
 * or changed" is checked exactly (a column a later migration adds is not part of the old rows).
 */
async function contents(
  run: RunSql,
  schemaName: string,
  columns: Record<string, string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of Object.keys(columns)) {
    const r = await run(
      `select count(*)::int as n, md5(coalesce(string_agg(to_jsonb(t)::text, '|' order by to_jsonb(t)::text), '')) as digest
       from (select ${columns[table]} from "${schemaName}"."${table}") t`,
    );
    out[table] = `${r[0]?.n} rows ${r[0]?.digest}`;
  }
  return out;
}

it('a database of the release before namespaces moves into auth in place: every row kept, old tokens and passwords still work', async () => {
  let fresh: FreshDatabase | undefined;
  let dataDir: string | undefined;
  if (onPostgres) {
    fresh = await createFreshDatabase(process.env.DATABASE_URL as string);
    cleanups.push(() => fresh?.drop());
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'namaa-upgrade-'));
    cleanups.push(() => rmSync(dataDir as string, { recursive: true, force: true }));
  }
  const where: Record<string, string> = fresh
    ? { DATABASE_URL: fresh.url }
    : { DATA_DIR: dataDir as string, PGLITE_FSYNC: 'false' };

  // 1. Real data, made by the service in a scratch namespace.
  const before = await startTestServer({ ...where, DB_NAMESPACE: 'scratch', MAILER_AUTOCONFIRM: 'true' });
  const email = uniqueEmail('upgrade');
  let session: { access_token: string; refresh_token: string };
  let factorId: string;
  try {
    const sb = before.client();
    const signUp = await sb.auth.signUp({ email, password: PASSWORD });
    expect(signUp.error).toBeNull();
    const enrol = await sb.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrol.error).toBeNull();
    const factor = enrol.data as { id: string; totp: { secret: string } };
    factorId = factor.id;
    const verified = await sb.auth.mfa.challengeAndVerify({
      factorId,
      code: await generate({ secret: factor.totp.secret, epoch: Math.floor(Date.now() / 1000) }),
    });
    expect(verified.error).toBeNull();
    const verifiedSession = verified.data as { access_token: string; refresh_token: string };
    // That release kept refresh tokens as rows (sessions held none): the session's token as it
    // would have issued it, and the session row without the columns it did not have.
    const legacyToken = `upgrade-legacy-refresh-${randomUUID()}`;
    const sessionId = refreshTokenSession(verifiedSession.refresh_token) as string;
    await before.server.deps.db.execute(sql`insert into refresh_tokens (id, token_hash, session_id, user_id)
      values (gen_random_uuid(), ${sha256(legacyToken)}, ${sessionId}::uuid,
        (select user_id from sessions where id = ${sessionId}::uuid))`);
    session = { access_token: verifiedSession.access_token, refresh_token: legacyToken };
    // A challenge left open (a verified one is used up).
    expect((await sb.auth.mfa.challenge({ factorId })).error).toBeNull();
    // A PKCE recovery request: a one-time token, a flow state and a mail in the outbox.
    const store = new Map<string, string>();
    const pkce = createClient(before.url, before.anonKey, {
      auth: {
        flowType: 'pkce',
        persistSession: true,
        autoRefreshToken: false,
        detectSessionInUrl: false,
        storage: {
          getItem: (k) => store.get(k) ?? null,
          setItem: (k, v) => void store.set(k, v),
          removeItem: (k) => void store.delete(k),
        },
      },
    });
    expect((await pkce.auth.resetPasswordForEmail(email)).error).toBeNull();
    await before.inbox.waitFor(email);
    // Passkeys need an authenticator (their own suite has one): rows written directly.
    const db = before.server.deps.db;
    const userId = signUp.data.user?.id as string;
    await db.execute(sql`insert into passkeys (id, user_id, credential_id, public_key)
      values (gen_random_uuid(), ${userId}, 'cred-upgrade', 'pk-upgrade')`);
    await db.execute(sql`insert into passkey_challenges (id, user_id, challenge_type, challenge, expires_at)
      values (gen_random_uuid(), ${userId}, 'registration', 'ch-upgrade', now() + interval '5 minutes')`);
    // A social sign-in in flight needs an OpenID provider (its suite runs one): a row written directly.
    await db.execute(sql`insert into oauth_states (id, state_hash, provider, redirect_to, provider_verifier, link_user_id, expires_at)
      values (gen_random_uuid(), 'state-upgrade', 'google', ${before.url}, 'verifier-upgrade', ${userId}, now() + interval '5 minutes')`);
  } finally {
    await before.close();
  }

  // 2. The old layout, as that release made it, holding those rows.
  const old = await rawSession({ url: fresh?.url, dataDir });
  let oldContents: Record<string, string>;
  let oldColumns: Record<string, string>;
  try {
    await old.migrateOld(releaseBeforeNamespaces());
    oldColumns = await columnsOf(old.run, 'public');
    for (const table of Object.keys(oldColumns))
      await old.run(
        `insert into public."${table}" (${oldColumns[table]}) select ${oldColumns[table]} from scratch."${table}"`,
      );
    await old.run('drop schema scratch cascade');
    oldContents = await contents(old.run, 'public', oldColumns);
  } finally {
    await old.close();
  }
  // The old layout has every table but those later migrations create; each holds rows.
  expect(Object.keys(oldColumns)).toEqual(expect.arrayContaining([...FIRST, 'passkeys', 'oauth_states']));
  for (const [table, summary] of Object.entries(oldContents)) expect(summary, table).not.toMatch(/^0 rows/);

  // 3. The new release opens it: everything moves into auth, unchanged.
  const database = await openDatabase({
    databaseUrl: fresh?.url,
    dataDir: dataDir ?? 'memory://',
    fsync: false,
  });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
  const after = await rawSession({ url: fresh?.url, dataDir });
  try {
    expect(await contents(after.run, 'auth', oldColumns)).toEqual(oldContents);
    const leftInPublic = await after.run(
      `select tablename from pg_catalog.pg_tables where schemaname in ('public', 'drizzle')`,
    );
    expect(leftInPublic).toEqual([]);
    const drizzleSchema = await after.run(`select 1 from pg_catalog.pg_namespace where nspname = 'drizzle'`);
    expect(drizzleSchema).toEqual([]);
    // The bookkeeping came along: only the new migration(s) ran, once.
    const applied = await after.run('select count(*)::int as n from auth.__drizzle_migrations');
    expect(applied[0]?.n).toBe(
      JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')).entries.length,
    );
    const helpers = await after.run(
      `select count(*)::int as n from pg_catalog.pg_proc where pronamespace = 'auth'::regnamespace and proname in ('uid', 'role', 'email', 'jwt')`,
    );
    expect(helpers[0]?.n).toBe(4);
  } finally {
    await after.close();
  }

  // 4. The upgraded service: the old session and password work.
  const t = await startTestServer({ ...where });
  try {
    const user = await t.api('/user', { headers: { authorization: `Bearer ${session.access_token}` } });
    expect(user.status).toBe(200);
    const me = (await user.json()) as { email: string; factors?: Array<{ id: string; status: string }> };
    expect(me.email).toBe(email);
    expect(me.factors).toEqual([expect.objectContaining({ id: factorId, status: 'verified' })]);
    const refreshed = await t.api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: session.refresh_token }),
    });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ user: { email } });
    const signIn = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.error).toBeNull();
  } finally {
    await t.close();
  }
}, 300_000);
