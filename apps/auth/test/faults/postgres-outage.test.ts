// PostgreSQL unreachable mid-traffic (issue 6): a TCP proxy in front of the shared server is cut and
// restored. Requests answer 503 + Retry-After (never 500), health goes red then green, the pool
// reconnects by itself, no user is left half-written, and a signed-in supabase-js client that
// refreshes during the outage is still signed in afterwards.
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { type RunningServer, startServer } from '../../src/run-service.ts';
import {
  createDatabase,
  PG_URL,
  postgresReachable,
  sleep,
  startCuttableProxy,
  uniqueEmail,
} from './support.ts';

const available = await postgresReachable();
let db: Awaited<ReturnType<typeof createDatabase>>;
let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
let server: RunningServer;

beforeAll(async () => {
  if (!available) return;
  db = await createDatabase();
  const target = new URL(PG_URL);
  proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(db.url);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: viaProxy.href,
    MAILER_AUTOCONFIRM: 'true',
    LOG_LEVEL: 'silent',
    EMAIL_RESPONSE_FLOOR_MS: '0',
    JWT_EXPIRY: '60',
    // The background traffic signs up and signs in far more often than the per-IP defaults allow;
    // this test is about outages, not rate limits (a 429 at the end would hide a failed recovery).
    RATE_LIMIT_OTP_PER_IP: '0',
    RATE_LIMIT_SIGNIN_PER_IP: '0',
    RATE_LIMIT_SIGNIN_PER_ACCOUNT: '0',
  });
  server = await startServer(config, { host: '127.0.0.1', site: false, logger: createLogger('silent') });
});
afterAll(async () => {
  await server?.close();
  await proxy?.close();
  await db?.drop();
});

it.skipIf(!available)(
  'answers 503 during the outage, recovers by itself, and keeps the client signed in',
  async () => {
    const url = server.url;
    const anon = server.deps.config.ANON_KEY;
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${url}/auth/v1${path}`, {
        ...init,
        headers: { apikey: anon, 'content-type': 'application/json', ...(init.headers as object) },
      });
    const sb = createClient(url, anon, { auth: { persistSession: false, autoRefreshToken: false } });
    const email = uniqueEmail('outage');
    const { data, error } = await sb.auth.signUp({ email, password: 'correct horse' });
    expect(error).toBeNull();
    const firstToken = data.session?.refresh_token;

    // Background traffic: sign-ups, sign-ins and user fetches, before, during and after the outage.
    const statuses: number[] = [];
    const signedUp: Array<{ email: string; status: number }> = [];
    let traffic = true;
    const workers = Array.from({ length: 4 }, async (_, w) => {
      while (traffic) {
        const e = uniqueEmail(`bg${w}`);
        const r = await api('/signup', {
          method: 'POST',
          body: JSON.stringify({ email: e, password: 'correct horse' }),
        });
        statuses.push(r.status);
        signedUp.push({ email: e, status: r.status });
        const s = await api('/token?grant_type=password', {
          method: 'POST',
          body: JSON.stringify({ email, password: 'correct horse' }),
        });
        statuses.push(s.status);
        await sleep(20);
      }
    });
    await sleep(500);

    proxy.cut();
    const cutAt = performance.now();
    const refreshDuring = await api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: firstToken }),
    });
    expect(refreshDuring.status).toBe(503);
    expect(Number(refreshDuring.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refreshDuring.json()).error_code).toBe('service_unavailable');
    const health = await fetch(`${url}/auth/v1/health`);
    expect(health.status).toBe(503);

    // supabase-js treats 503 as retryable: it retries the refresh with back-off while we are down.
    const refreshing = sb.auth.refreshSession();
    await sleep(3000);
    proxy.restore();
    const restoredAt = performance.now();

    let greenAfterMs = -1;
    for (let i = 0; i < 150; i++) {
      if ((await fetch(`${url}/auth/v1/health`)).status === 200) {
        greenAfterMs = performance.now() - restoredAt;
        break;
      }
      await sleep(100);
    }
    expect(greenAfterMs).toBeGreaterThanOrEqual(0);
    const refreshed = await refreshing;
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).toBeTruthy();
    // Still signed in: the session works for the user endpoint and refreshes again.
    expect((await sb.auth.getUser()).data.user?.email).toBe(email);
    expect((await sb.auth.refreshSession()).error).toBeNull();

    await sleep(500);
    traffic = false;
    await Promise.all(workers);
    console.log(
      `outage ${(restoredAt - cutAt).toFixed(0)} ms; health green ${greenAfterMs.toFixed(0)} ms after restore; ` +
        `background requests: ${statuses.length} (${statuses.filter((s) => s === 503).length} × 503, ` +
        `${statuses.filter((s) => s === 200).length} × 200)`,
    );
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.slice(-4).every((s) => s === 200)).toBe(true);

    // No partial writes: every user has its identity; every acknowledged sign-up is complete.
    const orphans = await db.query(
      'select count(*)::int as n from users u left join identities i on i.user_id = u.id where i.id is null',
    );
    expect(orphans.rows[0].n).toBe(0);
    const acked = signedUp.filter((s) => s.status === 200).map((s) => s.email);
    const present = await db.query('select email from users where email = any($1)', [acked]);
    expect(present.rowCount).toBe(acked.length);
  },
);
