/**
 * Per-request cost of the auth hot paths (not a test): `node bench/auth-hot-paths.ts`
 *
 * Throughput on a shared 2-core machine is noisy; cost per request is not. This runs the service
 * in-process and drives N SEQUENTIAL requests through the real HTTP app (app.request: routing,
 * middleware, JSON, handlers, database; no socket) and reports per operation:
 *  - wall µs (one request at a time, so this is latency including database round trips),
 *  - main-thread µs (event-loop active time: what caps throughput, since PGlite and JS share it),
 *  - process CPU µs (all threads: main + libuv pool (argon2, WebCrypto) + PGlite).
 * Sign-in is also shown net of one argon2 verify (measured alone), i.e. everything around the hash.
 * On PGlite and on PostgreSQL (a fresh database, dropped afterwards) when reachable.
 * Options: BENCH_N (default 400), BENCH_PG_URL. Writes bench/results/auth-hot-paths.json.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHttpApp } from '../apps/auth/src/app.ts';
import { loadConfig } from '../apps/auth/src/config.ts';
import { createLogger } from '../apps/auth/src/logger.ts';
import { startServer } from '../apps/auth/src/run-service.ts';
import { createFreshDatabase, postgresReachable } from '../apps/auth/test/support/fresh-database.ts';

const root = new URL('..', import.meta.url).pathname;
const N = Number(process.env.BENCH_N ?? 400);
const pgUrl = process.env.BENCH_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ANON = 'sb_publishable_namaa_development_key';
const PASSWORD = 'bench-password-123';

type Cost = { wallUs: number; mainUs: number; cpuUs: number };

async function cost(n: number, op: (i: number) => Promise<void>): Promise<Cost> {
  for (let i = 0; i < Math.min(50, n); i++) await op(i); // warm-up (JIT, prepared plans)
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await op(i);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  return {
    wallUs: Math.round((wall * 1000) / n),
    mainUs: Math.round((elu.active * 1000) / n),
    cpuUs: Math.round((cpu.user + cpu.system) / n),
  };
}

async function measure(label: string, env: Record<string, string>) {
  const config = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info', // the production default: one request line per request
    MAILER_AUTOCONFIRM: 'true',
    SITE_DIR: '/nonexistent',
    // Counted (so their cost is included) but never tripped.
    RATE_LIMIT_SIGNIN_PER_IP: '1000000',
    RATE_LIMIT_SIGNIN_PER_ACCOUNT: '1000000',
    RATE_LIMIT_OTP_PER_IP: '1000000',
    ...env,
  });
  // Logs go to /dev/null through pino's own (synchronous) destination: the serialisation cost stays.
  const logger = createLogger('info', (await import('pino')).default.destination('/dev/null'));
  const server = await startServer(config, { logger, site: false });
  const app = createHttpApp(server.deps);
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await app.request(`/auth/v1${path}`, {
      ...init,
      headers: { apikey: ANON, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  try {
    const email = `bench-${randomBytes(5).toString('hex')}@example.com`;
    const signup = await call('/signup', {
      method: 'POST',
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    let refreshToken = signup.refresh_token as string;
    const accessToken = signup.access_token as string;

    const refresh = await cost(N, async () => {
      const s = await call('/token?grant_type=refresh_token', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: refreshToken }),
      });
      refreshToken = s.refresh_token as string;
    });
    const getUser = await cost(N, async () => {
      await call('/user', { headers: { authorization: `Bearer ${accessToken}` } });
    });
    const signinN = Math.max(20, Math.floor(N / 8));
    const signin = await cost(signinN, async () => {
      await call('/token?grant_type=password', {
        method: 'POST',
        body: JSON.stringify({ email, password: PASSWORD }),
      });
    });
    return { label, refresh, getUser, signin };
  } finally {
    await server.close();
  }
}

async function argon2Cost(): Promise<Cost> {
  const { hash, verify } = await import('@node-rs/argon2');
  const stored = await hash(PASSWORD, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
  return cost(40, async () => {
    await verify(stored, PASSWORD);
  });
}

const argon2 = await argon2Cost();
const only = process.env.BENCH_DB; // 'pglite' | 'postgres' to run one
const results = [];
if (only !== 'postgres') results.push(await measure('PGlite', { DATA_DIR: 'memory://' }));
if (only === 'pglite') {
  // skipped
} else if (await postgresReachable(pgUrl)) {
  const database = await createFreshDatabase(pgUrl, 'namaa_bench');
  try {
    results.push(await measure('PostgreSQL', { DATABASE_URL: database.url }));
  } finally {
    await database.drop();
  }
} else console.log(`PostgreSQL at ${pgUrl} not reachable: skipped`);

const rows: Record<string, string | number>[] = [];
for (const r of results)
  for (const [op, c] of [
    ['refresh', r.refresh],
    ['GET /user', r.getUser],
    ['password sign-in', r.signin],
  ] as const)
    rows.push({
      database: r.label,
      operation: op,
      'wall µs': c.wallUs,
      'main-thread µs': c.mainUs,
      'CPU µs': c.cpuUs,
    });
rows.push({
  database: '-',
  operation: 'argon2id verify alone',
  'wall µs': argon2.wallUs,
  'main-thread µs': argon2.mainUs,
  'CPU µs': argon2.cpuUs,
});
for (const r of results)
  rows.push({
    database: r.label,
    operation: 'sign-in minus argon2',
    'wall µs': r.signin.wallUs - argon2.wallUs,
    'main-thread µs': r.signin.mainUs - argon2.mainUs,
    'CPU µs': r.signin.cpuUs - argon2.cpuUs,
  });
console.table(rows);
writeFileSync(
  join(root, 'bench/results/auth-hot-paths.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      sequentialRequests: N,
      note: 'µs per request, sequential, in-process app.request (no socket); PostgreSQL server CPU not included',
      argon2,
      results,
    },
    null,
    2,
  )}\n`,
);
console.log('written bench/results/auth-hot-paths.json');
