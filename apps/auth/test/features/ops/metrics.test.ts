// Issue #25: /metrics in Prometheus format (prom-client): requests by route pattern and status,
// latency histograms, sign-ins, failures, rate-limit trips, mail queue depth and the database pool;
// off in production unless a bearer token protects it.
//
// The registry is one per process (core/metrics.ts), so assertions compare counts before and after.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { rateLimitName } from '../../../src/core/metrics.ts';
import { mailOutbox } from '../../../src/db/schema.ts';
import { awayFromWindowEdge } from '../../support/rate-window.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

type Sample = { name: string; labels: Record<string, string>; value: number };

function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[k as string] = v as string;
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function scrape(t: TestServer, init: RequestInit = {}): Promise<Sample[]> {
  const res = await fetch(`${t.url}/metrics`, init);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(await res.text());
}

describe('/metrics', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts requests by route pattern and status, with a latency histogram', async () => {
    const before = await scrape(t);
    const sb = t.client();
    const email = uniqueEmail('metrics');
    expect((await sb.auth.signUp({ email, password: 'correct horse battery' })).error).toBeNull();
    const { data } = await sb.auth.signInWithPassword({ email, password: 'correct horse battery' });
    // A path with an id: counted under its pattern, never under the raw path.
    const factorId = randomUUID();
    const res = await t.api(`/factors/${factorId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${data.session?.access_token}` },
    });
    expect(res.status).toBe(404);
    const after = await scrape(t);
    const token = { method: 'POST', route: '/auth/v1/token', status: '200' };
    expect(
      value(after, 'namaa_http_requests_total', token) - value(before, 'namaa_http_requests_total', token),
    ).toBe(1);
    expect(
      value(after, 'namaa_http_request_duration_seconds_count', token) -
        value(before, 'namaa_http_request_duration_seconds_count', token),
    ).toBe(1);
    const inf = { ...token, le: '+Inf' };
    expect(value(after, 'namaa_http_request_duration_seconds_bucket', inf)).toBe(
      value(after, 'namaa_http_request_duration_seconds_count', token),
    );
    expect(value(after, 'namaa_http_request_duration_seconds_sum', token)).toBeGreaterThan(0);
    const factor = { method: 'DELETE', route: '/auth/v1/factors/:factorId', status: '404' };
    expect(value(after, 'namaa_http_requests_total', factor)).toBeGreaterThanOrEqual(1);
    const page = after.map((s) => JSON.stringify(s.labels)).join('\n');
    expect(page).not.toContain(factorId);
    expect(page).not.toContain(email);
  });

  it('counts sign-ins and failures by grant type, and error answers by code', async () => {
    const sb = t.client();
    const email = uniqueEmail('metrics');
    await sb.auth.signUp({ email, password: 'correct horse battery' });
    const before = await scrape(t);
    await sb.auth.signInWithPassword({ email, password: 'correct horse battery' });
    const wrong = await sb.auth.signInWithPassword({ email, password: 'wrong horse battery' });
    expect(wrong.error?.code).toBe('invalid_credentials');
    const after = await scrape(t);
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta('namaa_sign_ins_total', { grant_type: 'password', result: 'success' })).toBe(1);
    expect(delta('namaa_sign_ins_total', { grant_type: 'password', result: 'failure' })).toBe(1);
    expect(delta('namaa_auth_errors_total', { code: 'invalid_credentials' })).toBe(1);
    expect(delta('namaa_http_requests_total', { route: '/auth/v1/token', status: '400' })).toBe(1);
  });

  it('reports the mail queue depth and the database pool at scrape time', async () => {
    const before = value(await scrape(t), 'namaa_mail_queue_depth');
    // A message waiting for a later attempt (as after a failed send): queued, not yet sent.
    await t.server.deps.db.insert(mailOutbox).values({
      id: randomUUID(),
      kind: 'confirmation',
      toAddress: uniqueEmail('queued'),
      subject: 'queued',
      html: '<p>queued</p>',
      text: 'queued',
      nextAttemptAt: new Date(Date.now() + 3600_000),
    });
    const samples = await scrape(t);
    expect(value(samples, 'namaa_mail_queue_depth') - before).toBe(1);
    if (process.env.DATABASE_URL) {
      expect(value(samples, 'namaa_db_pool_max_connections')).toBeGreaterThanOrEqual(10);
      expect(value(samples, 'namaa_db_pool_connections')).toBeGreaterThanOrEqual(1);
    } else expect(samples.some((s) => s.name === 'namaa_db_pool_connections')).toBe(true);
    // The process's own figures (prom-client's defaults) are there too.
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('rate-limit trips', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', RATE_LIMIT_SIGNIN_PER_IP: '1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are counted by limit name, without the address or account', async () => {
    const before = await scrape(t);
    const sb = t.client();
    const email = uniqueEmail('trip');
    await awayFromWindowEdge(t.config.rateLimits.window);
    await sb.auth.signInWithPassword({ email, password: 'whatever password' });
    const refused = await sb.auth.signInWithPassword({ email, password: 'whatever password' });
    expect(refused.error?.status).toBe(429);
    const after = await scrape(t);
    expect(
      value(after, 'namaa_rate_limit_trips_total', { limit: 'signin:ip' }) -
        value(before, 'namaa_rate_limit_trips_total', { limit: 'signin:ip' }),
    ).toBe(1);
  });

  it('name a limit by its leading words only', () => {
    expect(rateLimitName('signin:ip:203.0.113.9')).toBe('signin:ip');
    expect(rateLimitName('otp:ip:2001:db8:abcd:1::/64')).toBe('otp:ip');
    expect(rateLimitName('email:ann@example.com')).toBe('email');
    expect(rateLimitName('email:floor:ann@example.com')).toBe('email:floor');
    expect(rateLimitName('email:global')).toBe('email:global');
    expect(rateLimitName('backoff:signin:ann@example.com:203.0.113.9')).toBe('backoff:signin');
    expect(rateLimitName(`backoff:mfa:${randomUUID()}`)).toBe('backoff:mfa');
    expect(rateLimitName('signin:acct:ann@example.com')).toBe('signin:acct');
  });
});

describe('access to /metrics', () => {
  const production = {
    NODE_ENV: 'production',
    SITE_URL: 'https://namaa.example',
    SMTP_URL: 'smtp://mail.example:587',
    MAIL_FROM: 'no-reply@namaa.example',
    DATABASE_URL: 'postgres://db.example/namaa',
  };

  it('is off in production unless a token protects it; on outside production', () => {
    expect(loadConfig({}).METRICS_ENABLED).toBe(true);
    expect(loadConfig(production).METRICS_ENABLED).toBe(false);
    expect(loadConfig({ ...production, METRICS_TOKEN: 'm'.repeat(32) }).METRICS_ENABLED).toBe(true);
    expect(
      loadConfig({ ...production, METRICS_TOKEN: 'm'.repeat(32), METRICS_ENABLED: 'false' }).METRICS_ENABLED,
    ).toBe(false);
  });

  it('refuses a short token in production and warns when it is opened without one', () => {
    expect(() => loadConfig({ ...production, METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN must be at least 32 characters/,
    );
    // The example env file's placeholders pass the length check; a copy started unedited is refused.
    const unedited = () =>
      loadConfig({
        ...production,
        METRICS_TOKEN: 'CHANGE-ME-openssl-rand-hex-32-xxxxxxxx',
        SERVICE_ROLE_KEY: 'CHANGE-ME-at-least-32-random-characters',
      });
    expect(unedited).toThrow(/METRICS_TOKEN still holds the example's CHANGE-ME placeholder/);
    expect(unedited).toThrow(/SERVICE_ROLE_KEY still holds the example's CHANGE-ME placeholder/);
    const open = loadConfig({ ...production, METRICS_ENABLED: 'true' });
    expect(open.METRICS_ENABLED).toBe(true);
    expect(open.warnings.join('\n')).toMatch(/METRICS_ENABLED=true without METRICS_TOKEN/);
  });

  it('with METRICS_TOKEN: 401 without the bearer token or with a wrong one, 200 with it', async () => {
    const token = 'metrics-token-'.padEnd(40, 'x');
    const t = await startTestServer({ METRICS_TOKEN: token });
    try {
      const none = await fetch(`${t.url}/metrics`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await none.json()).toMatchObject({ error_code: 'no_authorization' });
      const wrong = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}y` } });
      expect(wrong.status).toBe(401);
      const apikey = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.anonKey}` } });
      expect(apikey.status).toBe(401);
      await scrape(t, { headers: { authorization: `Bearer ${token}` } });
    } finally {
      await t.close();
    }
  });

  it('with METRICS_ENABLED=false: not served', async () => {
    const t = await startTestServer({ METRICS_ENABLED: 'false' });
    try {
      expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
