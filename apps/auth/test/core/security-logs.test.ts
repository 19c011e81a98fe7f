// Secret scan over the service's own logs (ASVS 16.2.5, catalogue case 50): a whole account journey
// at the most verbose level, then no password, email code, link token, refresh token or JWT may
// appear anywhere in what was logged. Then the failed-query path: Drizzle's error message lists the
// SQL and every bound value (password hash, TOTP secret, mail text), so it must never be logged, and
// a NUL byte (which PostgreSQL refuses) must not even reach a query.
import { Writable } from 'node:stream';
import { createClient } from '@supabase/supabase-js';
import { DrizzleQueryError, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { jsonTextProblem, MAX_JSON_DEPTH } from '../../src/core/http/json-depth.ts';
import { errorSummary, logSafeErr } from '../../src/db/error-summary.ts';
import { createLogger } from '../../src/logger.ts';
import { type RunningServer, startServer } from '../../src/run-service.ts';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.ts';
import { uniqueEmail } from '../support/test-server.ts';

type LoggedServer = { server: RunningServer; logs(): string; close(): Promise<void> };

/**
 * The real service logging at trace level into a string. PGlite in memory, or a fresh PostgreSQL
 * database when DATABASE_URL is set (the two drivers word and wrap their errors differently).
 */
async function startLoggedServer(env: Record<string, string> = {}): Promise<LoggedServer> {
  let logs = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  const database: FreshDatabase | undefined = process.env.DATABASE_URL
    ? await createFreshDatabase(process.env.DATABASE_URL)
    : undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'trace',
    EMAIL_RESPONSE_FLOOR_MS: '0',
    REFRESH_TOKEN_REUSE_INTERVAL: '0',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  });
  const server = await startServer(config, {
    host: '127.0.0.1',
    site: false,
    logger: createLogger('trace', sink),
  });
  config.SITE_URL = server.url;
  return {
    server,
    logs: () => logs,
    async close() {
      await server.close();
      await database?.drop();
    },
  };
}

let journey: LoggedServer;
let server: RunningServer;
beforeAll(async () => {
  journey = await startLoggedServer();
  server = journey.server;
});
afterAll(async () => {
  await journey?.close();
});

it('logs no password, code, link token, refresh token or JWT during a whole journey', async () => {
  const { url } = server;
  const anon = server.deps.config.ANON_KEY;
  const sb = createClient(url, anon, { auth: { persistSession: false, autoRefreshToken: false } });
  const email = uniqueEmail('logscan');
  const secrets: string[] = ['Sup3r secret pass', 'An0ther secret pass', 'wrong secret guess'];
  expect((await sb.auth.signUp({ email, password: secrets[0] as string })).error).toBeNull();
  await server.deps.mail.idle();
  const mails = (await (
    await fetch(`${url}/auth/v1/_dev/mailbox.json?to=${encodeURIComponent(email)}`)
  ).json()) as Array<{
    text: string;
  }>;
  const text = mails[0]?.text ?? '';
  const link = text.match(/https?:\/\/\S+verify\S+/)?.[0] as string;
  const code = text.match(/\b\d{6}\b/)?.[0];
  expect(link).toBeTruthy();
  secrets.push(new URL(link).searchParams.get('token') as string);
  if (code) secrets.push(code);
  const landed = await fetch(link, { redirect: 'manual' });
  const fragment = new URLSearchParams(new URL(landed.headers.get('location') as string).hash.slice(1));
  secrets.push(fragment.get('access_token') as string, fragment.get('refresh_token') as string);

  await sb.auth.signInWithPassword({ email, password: secrets[2] as string });
  const signIn = await sb.auth.signInWithPassword({ email, password: secrets[0] as string });
  const session = signIn.data.session;
  secrets.push(session?.access_token as string, session?.refresh_token as string);
  const oldRefresh = session?.refresh_token as string;
  const refreshed = await sb.auth.refreshSession();
  secrets.push(refreshed.data.session?.refresh_token as string);
  await sb.auth.refreshSession();
  // A replay (theft), a bad JWT and a password change.
  await fetch(`${url}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: anon, 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: oldRefresh }),
  });
  await fetch(`${url}/auth/v1/user`, {
    headers: { apikey: anon, authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc' },
  });
  const again = await sb.auth.signInWithPassword({ email, password: secrets[0] as string });
  secrets.push(again.data.session?.access_token as string);
  await sb.auth.updateUser({ password: secrets[1] as string });
  await sb.auth.resetPasswordForEmail(email);
  await sb.auth.signOut();
  await server.deps.mail.idle();

  const logs = journey.logs();
  expect(logs.length).toBeGreaterThan(1000); // it did log, verbosely
  for (const secret of secrets.filter(Boolean))
    expect(logs, `a secret reached the logs`).not.toContain(secret);
  expect(logs).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/); // no whole JWT at all
  expect(logs).not.toMatch(/\$argon2id\$/);
});

/** What no log line may hold, whatever failed: Drizzle's query text and the values it lists. */
function expectNoQueryLeak(logs: string, secrets: string[]) {
  expect(logs).not.toContain('params:');
  expect(logs).not.toContain('Failed query');
  expect(logs).not.toMatch(/\$argon2/);
  expect(logs).not.toMatch(/\b[A-Z2-7]{32}\b/); // a TOTP secret: 20 bytes of base32
  for (const secret of secrets) expect(logs, 'a secret reached the logs').not.toContain(secret);
}

describe('a NUL byte in a request body (PostgreSQL refuses it; the failed query listed every value)', () => {
  let t: LoggedServer;
  let accessToken: string;
  let answers: Array<{ status: number; json: Record<string, unknown> }>;
  const password = 'Nul-test secret pass 1';
  const newPassword = 'Nul-test secret pass 2';

  async function send(method: string, path: string, body: unknown, auth = false) {
    const res = await fetch(`${t.server.url}/auth/v1${path}`, {
      method,
      headers: {
        apikey: t.server.deps.config.ANON_KEY,
        'content-type': 'application/json',
        ...(auth ? { authorization: `Bearer ${accessToken}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    t = await startLoggedServer({ MAILER_AUTOCONFIRM: 'true' });
    expect(t.server.deps.database.kind).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite');
    const sb = createClient(t.server.url, t.server.deps.config.ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
    });
    const { data, error } = await sb.auth.signUp({ email: uniqueEmail('nul'), password });
    expect(error).toBeNull();
    accessToken = data.session?.access_token as string;
    answers = [
      // Sign-up: the failed insert listed the email and the new argon2id hash.
      await send('POST', '/signup', { email: uniqueEmail('nul'), password, data: { x: 'a\u0000b' } }),
      // TOTP enrolment: the failed insert listed the factor's secret.
      await send('POST', '/factors', { factor_type: 'totp', friendly_name: 'a\u0000b' }, true),
      // Password change with metadata: the failed update listed the new password's hash.
      await send('PUT', '/user', { password: newPassword, data: { x: 'a\u0000b' } }, true),
    ];
    await t.server.deps.mail.idle();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers 4xx in GoTrue's shape and logs no hash, TOTP secret, password or parameter list", () => {
    for (const r of answers) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.json).toMatchObject({
        code: r.status,
        error_code: expect.any(String),
        msg: expect.any(String),
      });
    }
    const logs = t.logs();
    expect(logs).toContain('"status":400'); // the requests were logged
    expectNoQueryLeak(logs, [password, newPassword]);
  });

  it('refuses them up front as 400 bad_json, so no query runs (and none fails)', () => {
    for (const r of answers)
      expect(r.json).toMatchObject({
        code: 400,
        error_code: 'bad_json',
        msg: expect.stringContaining('\\u0000'),
      });
    expect(t.logs()).not.toContain('data exception from input');
  });

  it('still takes the same request without the NUL', async () => {
    const r = await send('PUT', '/user', { data: { x: 'a b' } }, true);
    expect(r.status).toBe(200);
    expect(r.json.user_metadata).toMatchObject({ x: 'a b' });
  });
});

describe('the error handler logs a failed query as its SQLSTATE and driver message only', () => {
  const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA';
  const totpSecret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

  /** createHttpApp's own handler (both the app and the /auth/v1 API use it) behind a throwing route. */
  async function throwThrough(
    err: unknown,
  ): Promise<{ status: number; body: Record<string, unknown>; log: string }> {
    const before = journey.logs().length;
    const app = createHttpApp(server.deps);
    app.post('/boom', () => {
      throw err;
    });
    const res = await app.request('/boom', { method: 'POST' });
    const log = journey.logs().slice(before);
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, log };
  }

  it('a real failed query (NUL in a bound value): 400 validation_failed, code and message logged', async () => {
    const failed = await server.deps.db
      .execute(sql`select ${hash}::text as h, ${totpSecret}::text as s, ${'a\u0000b'}::text as n`)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((failed as Error).message)).toContain('params:'); // Drizzle's wrapper, as in production
    const r = await throwThrough(failed);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error_code: 'validation_failed' });
    expectNoQueryLeak(r.log, [hash, totpSecret]);
    const line = JSON.parse(r.log.split('\n').find((l) => l.includes('data exception')) as string);
    // 22021 from both drivers: invalid byte sequence for encoding "UTF8": 0x00
    expect(line.err).toEqual({ sqlState: expect.stringMatching(/^22/), message: expect.any(String) });
  });

  it('an unexpected one (unique violation with detail): 500, no SQL, params or detail logged', async () => {
    const r = await throwThrough(
      drizzleWrapped(hash, { code: '23505', detail: 'Key (email)=(bob@example.com)' }),
    );
    expect(r.status).toBe(500);
    expect(r.log).toContain('unexpected error');
    expect(r.log).toContain('duplicate key value violates unique constraint');
    expect(r.log).not.toContain('bob@example.com');
    expectNoQueryLeak(r.log, [hash, totpSecret]);
  });

  it('an outage under the wrapper: 503, the connection error logged', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const r = await throwThrough(
      new DrizzleQueryError('insert into mail_outbox … values ($1)', [totpSecret], refused),
    );
    expect(r.status).toBe(503);
    expect(r.log).toContain('connect ECONNREFUSED 127.0.0.1:5432');
    expectNoQueryLeak(r.log, [totpSecret]);
  });
});

/** A driver error as PGlite throws it (it attaches `query` and `params`) inside Drizzle's wrapper. */
function drizzleWrapped(secret: string, fields: { code: string; detail: string }): DrizzleQueryError {
  const query = 'insert into "users" ("email", "encrypted_password") values ($1, $2)';
  const params = ['bob@example.com', secret];
  const driver = Object.assign(
    new Error('duplicate key value violates unique constraint "users_email_key"'),
    {
      ...fields,
      severity: 'ERROR',
      query,
      params,
    },
  );
  return new DrizzleQueryError(query, params, driver);
}

describe('errorSummary', () => {
  it('keeps the SQLSTATE and the driver message of a wrapped failed query, never its params', () => {
    const err = drizzleWrapped('$argon2id$v=19$m=19456,t=2,p=1$secret', {
      code: '23505',
      detail: 'Key (email)=(bob@example.com) already exists.',
    });
    expect(err.message).toContain('params: bob@example.com,$argon2id$'); // what used to be logged
    expect(errorSummary(err)).toEqual({
      sqlState: '23505',
      message: 'duplicate key value violates unique constraint "users_email_key"',
    });
    const withStack = errorSummary(err, { stack: true });
    expect(withStack.stack).toMatch(/^\s+at /);
    expect(JSON.stringify(withStack)).not.toMatch(/params|argon2|bob@example\.com|Failed query|insert into/);
  });

  it('describes other errors by their message, and withholds a wrapper with no usable cause', () => {
    expect(errorSummary(new TypeError('x is undefined'))).toEqual({ message: 'x is undefined' });
    expect(errorSummary(new DrizzleQueryError('select $1', ['secret-value']))).toEqual({
      message: 'database query failed',
    });
    expect(errorSummary(new Error(String(new DrizzleQueryError('select $1', ['secret-value']))))).toEqual({
      message: 'database query failed',
    });
    expect(errorSummary('thrown string')).toEqual({ message: 'thrown string' });
  });

  it("is also the logger's err serializer, for call sites that log an error or its message", () => {
    const err = drizzleWrapped('secret-value', { code: '23505', detail: 'd' });
    expect(JSON.stringify(logSafeErr(err))).not.toContain('secret-value');
    expect(logSafeErr(err.message)).toBe('database query failed (query text withheld)');
    expect(logSafeErr('smtp refused')).toBe('smtp refused');
    let line = '';
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _enc, done) {
          line += chunk.toString();
          done();
        },
      }),
    );
    logger.warn({ err: err.message }, 'mail dispatcher drain failed');
    logger.error(err, 'failed');
    expect(line).toContain('duplicate key value violates unique constraint');
    expect(line).not.toContain('secret-value');
    expect(line).not.toContain('params');
  });
});

describe('jsonTextProblem', () => {
  it('finds \\u0000 in any string, key or value, at any depth, in the same pass as the depth', () => {
    expect(jsonTextProblem('{"password":"a\\u0000b"}', MAX_JSON_DEPTH)).toBe('nul');
    expect(jsonTextProblem('{"data":{"x":[{"k\\u0000":1}]}}', MAX_JSON_DEPTH)).toBe('nul');
    expect(jsonTextProblem('{"a":"\\\\u0000"}', MAX_JSON_DEPTH)).toBeUndefined(); // backslash + text
    expect(jsonTextProblem('{"a":"\\u0001 \\u00000"}', MAX_JSON_DEPTH)).toBe('nul');
    expect(jsonTextProblem('{"a":"\\u0001\\n"}', MAX_JSON_DEPTH)).toBeUndefined();
    expect(jsonTextProblem('[[["x"]]]', 2)).toBe('too_deep');
    expect(jsonTextProblem('{"a":"u0000"}', MAX_JSON_DEPTH)).toBeUndefined();
  });
});
