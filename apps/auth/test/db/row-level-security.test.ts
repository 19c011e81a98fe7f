// Issue #25: a Supabase app's table next to the service, with `references auth.users(id)` and a
// row-level security policy on auth.uid(), works unchanged. The claims are those of real access
// tokens the service issued (through supabase-js), handed to the transaction the way PostgREST does:
// `set local role <caller's role>` and `set_config('request.jwt.claims', <payload JSON>, true)`.
// On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { decodeJwt, type JWTPayload } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryRows, sqlState } from '../../src/db/client.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

let t: TestServer;
// Roles belong to the whole PostgreSQL server, shared by parallel test files: a name of our own.
const role = `rls_caller_${randomBytes(4).toString('hex')}`;
const callers: Array<{ id: string; email: string; claims: JWTPayload }> = [];

beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  for (const prefix of ['rls-a', 'rls-b']) {
    const email = uniqueEmail(prefix);
    const { data, error } = await t.client().auth.signUp({ email, password: 'Rls-Test-Pass-8841' });
    expect(error).toBeNull();
    const token = data.session?.access_token as string;
    callers.push({ id: data.user?.id as string, email, claims: decodeJwt(token) });
  }
  const db = t.server.deps.db;
  // What a Supabase project does for its own data (the service's connection is the table owner,
  // so the policy is tried as a separate, unprivileged role like PostgREST's `authenticated`).
  await db.execute(sql.raw(`create role ${role} nologin`));
  await db.execute(sql.raw(`grant usage on schema auth to ${role}`));
  await db.execute(sql`create table public.notes (
    id serial primary key,
    user_id uuid not null references auth.users(id) on delete cascade,
    body text not null)`);
  await db.execute(sql`alter table public.notes enable row level security`);
  await db.execute(
    sql.raw(`create policy own_notes on public.notes to ${role}
      using (user_id = auth.uid()) with check (user_id = auth.uid())`),
  );
  await db.execute(sql.raw(`grant select, insert on public.notes to ${role}`));
  await db.execute(sql.raw(`grant usage on sequence public.notes_id_seq to ${role}`));
  for (const c of callers)
    await db.execute(sql`insert into public.notes (user_id, body) values (${c.id}, ${`note of ${c.email}`})`);
}, 120_000);

afterAll(async () => {
  // The role outlives the test database on PostgreSQL: take back what it was given, then drop it.
  await t?.server.deps.db.execute(sql.raw(`drop owned by ${role}`)).catch(() => {});
  await t?.server.deps.db.execute(sql.raw(`drop role if exists ${role}`)).catch(() => {});
  await t?.close();
});

/** Runs `query` as PostgREST runs a request: in a transaction, as the role, with these settings. */
async function asCaller<T>(settings: Record<string, string>, query: ReturnType<typeof sql>): Promise<T[]> {
  return t.server.deps.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local role ${role}`));
    for (const [name, value] of Object.entries(settings))
      await tx.execute(sql`select set_config(${name}, ${value}, true)`);
    return queryRows<T>(tx, query);
  });
}

const claimsOf = (i: number) => ({ 'request.jwt.claims': JSON.stringify(callers[i]?.claims) });
const notes = sql`select body from public.notes order by id`;

it('the policy on auth.uid() shows each caller only their own rows, and none without a JWT', async () => {
  const [a, b] = callers;
  expect(await asCaller(claimsOf(0), notes)).toEqual([{ body: `note of ${a?.email}` }]);
  expect(await asCaller(claimsOf(1), notes)).toEqual([{ body: `note of ${b?.email}` }]);
  // No claims (an anonymous request), or PostgREST's empty setting: auth.uid() is NULL, no row.
  expect(await asCaller({}, notes)).toEqual([]);
  expect(await asCaller({ 'request.jwt.claims': '' }, notes)).toEqual([]);
});

it("the policy's check refuses a row written for someone else; the foreign key refuses an unknown user", async () => {
  const [a, b] = callers;
  const own = await asCaller<{ id: number }>(
    claimsOf(0),
    sql`insert into public.notes (user_id, body) values (${a?.id}, 'mine') returning id`,
  );
  expect(own).toHaveLength(1);
  await t.server.deps.db.execute(sql`delete from public.notes where id = ${own[0]?.id}`);
  const err = await asCaller(
    claimsOf(0),
    sql`insert into public.notes (user_id, body) values (${b?.id}, 'forged') returning id`,
  ).catch((e: unknown) => e);
  expect(sqlState(err)).toBe('42501'); // new row violates row-level security policy
  const fk = await t.server.deps.db
    .execute(
      sql`insert into public.notes (user_id, body) values ('00000000-0000-4000-8000-000000000000', 'x')`,
    )
    .catch((e: unknown) => e);
  expect(sqlState(fk)).toBe('23503');
});

it('auth.uid(), auth.role(), auth.email() and auth.jwt() read the claims as GoTrue defines them', async () => {
  const a = callers[0];
  const helpers = sql`select auth.uid()::text as uid, auth.role() as role, auth.email() as email,
    auth.jwt() ->> 'session_id' as session_id, auth.jwt() ->> 'aal' as aal`;
  expect(await asCaller(claimsOf(0), helpers)).toEqual([
    {
      uid: a?.id,
      role: 'authenticated',
      email: a?.email,
      session_id: a?.claims.session_id,
      aal: 'aal1',
    },
  ]);
  // Older PostgREST releases set one setting per claim; those win over the JSON one.
  expect(
    await asCaller(
      {
        'request.jwt.claim.sub': a?.id as string,
        'request.jwt.claim.role': 'anon',
        'request.jwt.claim.email': 'x@y.z',
      },
      sql`select auth.uid()::text as uid, auth.role() as role, auth.email() as email, auth.jwt() as jwt`,
    ),
  ).toEqual([{ uid: a?.id, role: 'anon', email: 'x@y.z', jwt: null }]);
  expect(await asCaller({ 'request.jwt.claim.sub': a?.id as string }, notes)).toEqual([
    { body: `note of ${a?.email}` },
  ]);
  // Nothing set: every helper is NULL, none fails.
  expect(
    await asCaller(
      {},
      sql`select auth.uid() as uid, auth.role() as role, auth.email() as email, auth.jwt() as jwt`,
    ),
  ).toEqual([{ uid: null, role: null, email: null, jwt: null }]);
});
