// GoTrue's auth hooks as SQL functions (`pg-functions://postgres/<schema>/<function>`), run by the
// embedded PGlite and, with DATABASE_URL, by PostgreSQL: the same functions a Supabase project
// writes. Success, a refusal, a malformed answer, a function that raises, one that drops a required
// claim, and one that overruns GoTrue's 2 s: each answered with GoTrue's error, never a 500.
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Pg-Hook-Suite-Pass-5512';
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: 'true',
    HOOK_CUSTOM_ACCESS_TOKEN_URI: 'pg-functions://postgres/hooks/custom_access_token',
    HOOK_BEFORE_USER_CREATED_ENABLED: 'true',
    HOOK_BEFORE_USER_CREATED_URI: 'pg-functions://postgres/hooks/before_user_created',
  });
  // A project's hook functions, written as for Supabase: jsonb in, jsonb out. Each test's address
  // picks a behaviour.
  await t.server.deps.db.execute(sql.raw('create schema if not exists hooks'));
  await t.server.deps.db.execute(
    sql.raw(`
    create or replace function hooks.custom_access_token(event jsonb) returns jsonb
    language plpgsql as $$
    declare
      claims jsonb := event->'claims';
      email text := claims->>'email';
    begin
      if email like 'drop-%' then
        return jsonb_build_object('claims', claims - 'role');
      elsif email like 'raise-%' then
        raise exception 'the hook broke';
      elsif email like 'slow-%' then
        perform pg_sleep(4);
      elsif email like 'noclaims-%' then
        return '{"claim": {}}'::jsonb;
      elsif email like 'scalar-%' then
        return '"claims"'::jsonb;
      end if;
      return jsonb_build_object('claims',
        claims || jsonb_build_object('tenant_id', 'tenant-' || split_part(email, '@', 2),
                                     'hook_method', event->>'authentication_method'));
    end $$`),
  );
  await t.server.deps.db.execute(
    sql.raw(`
    create or replace function hooks.before_user_created(event jsonb) returns jsonb
    language plpgsql as $$
    begin
      if event->'user'->>'email' like '%@blocked.example' then
        return jsonb_build_object('error',
          jsonb_build_object('http_code', 400, 'message', 'Please use your work address'));
      end if;
      return '{}'::jsonb;
    end $$`),
  );
});
afterAll(async () => {
  await t?.close();
});

describe('SQL hook functions', () => {
  it('custom_access_token adds claims, in the token and in getClaims(), on refresh too', async () => {
    const sb = t.client();
    const email = uniqueEmail('sql');
    const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(decodeJwt(data.session?.access_token as string)).toMatchObject({
      tenant_id: 'tenant-example.com',
      hook_method: 'password',
      email,
    });
    const claims = await sb.auth.getClaims();
    expect(claims.data?.claims).toMatchObject({ tenant_id: 'tenant-example.com' });
    const refreshed = await sb.auth.refreshSession();
    expect(decodeJwt(refreshed.data.session?.access_token as string).hook_method).toBe('token_refresh');
  });

  it("before_user_created's refusal reaches the client with its status and message", async () => {
    const { error } = await t.client().auth.signUp({ email: 'someone@blocked.example', password: PASSWORD });
    expect(error).toMatchObject({ status: 400, message: 'Please use your work address' });
    const signIn = await t
      .client()
      .auth.signInWithPassword({ email: 'someone@blocked.example', password: PASSWORD });
    expect(signIn.error?.code).toBe('invalid_credentials');
  });

  it('claims without a required one (role): 502 naming it', async () => {
    const { error } = await t.client().auth.signUp({ email: uniqueEmail('drop'), password: PASSWORD });
    expect(error?.status).toBe(502);
    expect(error?.message).toContain('output claims do not conform to the expected schema');
    expect(error?.message).toContain('role');
  });

  it('a malformed answer (no claims object) and a function that raises: 502, never 500', async () => {
    const noClaims = await t.client().auth.signUp({ email: uniqueEmail('noclaims'), password: PASSWORD });
    expect(noClaims.error).toMatchObject({ status: 502, message: 'output claims field is missing' });
    const scalar = await t.client().auth.signUp({ email: uniqueEmail('scalar'), password: PASSWORD });
    expect(scalar.error).toMatchObject({ status: 502, message: 'Error unmarshaling JSON output.' });
    const raised = await t.client().auth.signUp({ email: uniqueEmail('raise'), password: PASSWORD });
    expect(raised.error).toMatchObject({
      status: 502,
      message: 'Error running hook URI: pg-functions://postgres/hooks/custom_access_token',
    });
  });

  it("a function slower than 2 s: GoTrue's 422 hook_timeout (PostgreSQL: on time)", async () => {
    const started = Date.now();
    const { error } = await t.client().auth.signUp({ email: uniqueEmail('slow'), password: PASSWORD });
    expect(error).toMatchObject({ status: 422, code: 'hook_timeout' });
    // PostgreSQL cancels it at 2 s; PGlite cannot interrupt SQL and refuses it when it returns (4 s).
    if (process.env.DATABASE_URL) expect(Date.now() - started).toBeLessThan(3_900);
  }, 20_000);
});
