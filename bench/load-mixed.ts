/**
 * Mixed load on two service instances sharing one PostgreSQL database (not a test):
 *   npm run bench:load            (BENCH_DURATION=60 s, BENCH_CONNECTIONS=64 by default)
 *
 * Each connection owns an account and its session and loops over a weighted mix: password sign-in
 * (20 %), refresh-token rotation (40 %) and GET /user with the current access token (40 %), each
 * request sent to either instance at random (so a token minted by one is used on the other).
 * Reports requests/s, p50/p95/p99 per operation, 5xx count, "lost sessions" (a refresh or user
 * fetch refused for the token the client legitimately holds) and each process's RSS before and
 * after. Loopback only; a fresh database is created and dropped. Writes bench/results/load-mixed.json.
 * Exit code 1 when any 5xx or lost session was seen.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createFreshDatabase } from '../apps/auth/test/support/fresh-database.ts';

const root = new URL('..', import.meta.url).pathname;
const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ANON = 'sb_publishable_namaa_development_key';
const PASSWORD = 'bench-load-password';

type Op = 'signin' | 'refresh' | 'user';
type Instance = { url: string; child: ChildProcess };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function startInstance(databaseUrl: string): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'apps/auth/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      SITE_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: 'smtp://127.0.0.1:9', // never used: auto-confirm sends no mail
      MAIL_FROM: 'no-reply@namaa.example',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      MAILER_AUTOCONFIRM: 'true',
      SITE_DIR: '/nonexistent',
      // One client IP drives everything: the per-IP and per-account limits would measure themselves.
      RATE_LIMIT_SIGNIN_PER_IP: '0',
      RATE_LIMIT_SIGNIN_PER_ACCOUNT: '0',
      RATE_LIMIT_OTP_PER_IP: '0',
      RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '0',
      EMAIL_RESPONSE_FLOOR_MS: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`instance exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/auth/v1/health`)).status === 200) return { url, child };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('instance did not start');
}

function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

async function call(url: string, path: string, init: { method: string; body?: unknown; token?: string }) {
  const headers: Record<string, string> = { apikey: ANON };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${url}/auth/v1${path}`, {
    method: init.method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, json: () => JSON.parse(text) as Record<string, string> };
}

// A fresh database for this run.
const database = await createFreshDatabase(PG_URL, 'namaa_load');
const dbUrl = new URL(database.url);

const instances: Instance[] = [];
let exitCode = 0;
try {
  // The first instance migrates; the second starts on the migrated database.
  instances.push(await startInstance(dbUrl.href));
  instances.push(await startInstance(dbUrl.href));
  const pick = () => instances[Math.floor(Math.random() * instances.length)] as Instance;

  console.log(`seeding ${CONNECTIONS} accounts…`);
  type Session = { email: string; access: string; refresh: string };
  const sessions: Session[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const email = `load-${randomBytes(5).toString('hex')}@example.com`;
    const r = await call(pick().url, '/signup', { method: 'POST', body: { email, password: PASSWORD } });
    if (r.status !== 200) throw new Error(`seeding failed: ${r.status}`);
    const j = r.json();
    sessions.push({ email, access: j.access_token as string, refresh: j.refresh_token as string });
  }

  const latencies: Record<Op, number[]> = { signin: [], refresh: [], user: [] };
  const statusCounts: Record<string, number> = {};
  let fiveXx = 0;
  let lostSessions = 0;
  let otherErrors = 0;
  const lostDetail: string[] = [];

  async function worker(session: Session, until: number, record: boolean) {
    while (Date.now() < until) {
      const roll = Math.random();
      const op: Op = roll < 0.2 ? 'signin' : roll < 0.6 ? 'refresh' : 'user';
      const started = performance.now();
      let status = 0;
      try {
        if (op === 'signin') {
          const r = await call(pick().url, '/token?grant_type=password', {
            method: 'POST',
            body: { email: session.email, password: PASSWORD },
          });
          status = r.status;
          if (status === 200) {
            const j = r.json();
            // A sign-in starts a new session; the client switches to it (the old one stays valid).
            session.access = j.access_token as string;
            session.refresh = j.refresh_token as string;
          }
        } else if (op === 'refresh') {
          const r = await call(pick().url, '/token?grant_type=refresh_token', {
            method: 'POST',
            body: { refresh_token: session.refresh },
          });
          status = r.status;
          if (status === 200) {
            const j = r.json();
            session.access = j.access_token as string;
            session.refresh = j.refresh_token as string;
          } else if (status >= 400 && status < 500 && status !== 429) {
            lostSessions++;
            if (lostDetail.length < 5) lostDetail.push(`refresh ${status}`);
          }
        } else {
          const r = await call(pick().url, '/user', { method: 'GET', token: session.access });
          status = r.status;
          if (status === 401 || status === 403) {
            lostSessions++;
            if (lostDetail.length < 5) lostDetail.push(`user ${status}`);
          }
        }
      } catch (err) {
        otherErrors++;
        if (lostDetail.length < 5) lostDetail.push(`network: ${(err as Error).message}`);
      }
      if (!record) continue;
      latencies[op].push(performance.now() - started);
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      if (status >= 500) fiveXx++;
    }
  }

  // Warm-up (JIT, pools), then RSS "before", the measured run, RSS "after".
  await Promise.all(sessions.map((s) => worker(s, Date.now() + 3000, false)));
  const rssBefore = instances.map((i) => rssMiB(i.child.pid));
  console.log(`running ${DURATION} s at ${CONNECTIONS} connections on 2 instances…`);
  const started = Date.now();
  await Promise.all(sessions.map((s) => worker(s, started + DURATION * 1000, true)));
  const elapsed = (Date.now() - started) / 1000;
  const rssAfter = instances.map((i) => rssMiB(i.child.pid));

  const all = [...latencies.signin, ...latencies.refresh, ...latencies.user];
  const summary = (xs: number[]) => ({
    requests: xs.length,
    perSecond: Number((xs.length / elapsed).toFixed(1)),
    p50: Number(pct(xs, 50).toFixed(1)),
    p95: Number(pct(xs, 95).toFixed(1)),
    p99: Number(pct(xs, 99).toFixed(1)),
  });
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
    durationSeconds: Number(elapsed.toFixed(1)),
    connections: CONNECTIONS,
    instances: instances.length,
    database: 'PostgreSQL (fresh database)',
    mix: { signin: 0.2, refresh: 0.4, user: 0.4 },
    total: summary(all),
    signin: summary(latencies.signin),
    refresh: summary(latencies.refresh),
    user: summary(latencies.user),
    statuses: statusCounts,
    fiveXx,
    lostSessions,
    networkErrors: otherErrors,
    rssMiB: instances.map((_, i) => ({
      instance: i + 1,
      before: Number(rssBefore[i]?.toFixed(1)),
      after: Number(rssAfter[i]?.toFixed(1)),
    })),
  };
  console.table({ total: result.total, signin: result.signin, refresh: result.refresh, user: result.user });
  console.table(result.rssMiB);
  console.log(
    `5xx: ${fiveXx}  lost sessions: ${lostSessions}  network errors: ${otherErrors}  statuses: ${JSON.stringify(statusCounts)}`,
  );
  if (lostDetail.length) console.log(`first problems: ${lostDetail.join('; ')}`);
  writeFileSync(join(root, 'bench/results/load-mixed.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log('written bench/results/load-mixed.json');
  if (fiveXx > 0 || lostSessions > 0 || otherErrors > 0) exitCode = 1;
} finally {
  for (const i of instances) {
    i.child.kill('SIGTERM');
    await new Promise((r) => (i.child.exitCode !== null ? r(null) : i.child.once('exit', r)));
  }
  await database.drop();
}
process.exit(exitCode);
