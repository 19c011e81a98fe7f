/**
 * Auth service throughput on this machine (not a test): `node bench/auth-throughput.ts`
 *
 * 1. argon2id verify rate alone (m=19 MiB, t=2, p=1): the hash-bound limit of password sign-in.
 * 2. Password sign-ins/s and p99 at 32 connections (POST /token?grant_type=password).
 * 3. Refresh-token rotations/s at 32 connections: every connection follows its own chain (each
 *    response's refresh_token is used for the next request), so each request is a real rotation.
 * On PGlite, and on PostgreSQL when reachable (a fresh database, dropped afterwards).
 * The service runs as a child process, so autocannon does not share its event loop. Besides
 * requests/s (noisy on a shared machine) it reports the service process's CPU time per request
 * (from /proc/<pid>/stat: main thread + libuv pool + PGlite; PostgreSQL's own CPU not included).
 * Rate limits are counted (so their statements are part of the cost) but set too high to trip.
 * Writes bench/results/auth-throughput.json. Options: BENCH_DURATION (s, default 10), BENCH_PG_URL.
 * Per-request cost of each hot path in isolation: bench/auth-hot-paths.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash, verify } from '@node-rs/argon2';
import autocannon from 'autocannon';
import { createFreshDatabase, postgresReachable } from '../apps/auth/test/support/fresh-database.ts';

const root = new URL('..', import.meta.url).pathname;
const duration = Number(process.env.BENCH_DURATION ?? 10);
const pgUrl = process.env.BENCH_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ANON = 'sb_publishable_namaa_development_key';
const CONNECTIONS = 32;
const PASSWORD = 'bench-password-123';

async function argon2Rate(seconds: number): Promise<number> {
  const stored = await hash(PASSWORD, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
  let done = 0;
  const end = Date.now() + seconds * 1000;
  // Enough in flight to keep every libuv pool thread busy (the server does the same under load).
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < end) {
        await verify(stored, PASSWORD);
        done++;
      }
    }),
  );
  return done / seconds;
}

async function startService(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, 'apps/auth/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      MAILER_AUTOCONFIRM: 'true',
      SITE_DIR: '/nonexistent',
      // Counted but never tripped: every request comes from one client IP.
      RATE_LIMIT_SIGNIN_PER_IP: '1000000',
      RATE_LIMIT_SIGNIN_PER_ACCOUNT: '1000000',
      RATE_LIMIT_OTP_PER_IP: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/running at (http:\/\/[^\s]+)/);
      if (m) resolve((m[1] as string).replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  return { url, child };
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { apikey: ANON, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

type Run = { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuUsPerRequest: number };

/** utime + stime of a process in µs (Linux /proc; clock ticks are 100 Hz on Linux). */
function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function cannon(opts: autocannon.Options, pid: number): Promise<Run> {
  const cpu0 = processCpuUs(pid);
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, r) => {
      if (err) return reject(err);
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
        cpuUsPerRequest: Math.round((processCpuUs(pid) - cpu0) / Math.max(1, r.requests.total)),
      });
    });
  });
}

async function measure(label: string, env: Record<string, string>) {
  const { url, child } = await startService(env);
  const pid = child.pid as number;
  try {
    const emails = Array.from(
      { length: CONNECTIONS },
      () => `bench-${randomBytes(5).toString('hex')}@example.com`,
    );
    const sessions = [];
    for (const email of emails)
      sessions.push(await post(`${url}/auth/v1/signup`, { email, password: PASSWORD }));
    const headers = { apikey: ANON, 'content-type': 'application/json' };

    // Warm-up, then sign-ins spread over the seeded accounts.
    let n = 0;
    const signinOpts = (d: number): autocannon.Options => ({
      url: `${url}/auth/v1/token?grant_type=password`,
      connections: CONNECTIONS,
      duration: d,
      method: 'POST',
      headers,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ email: emails[n++ % emails.length], password: PASSWORD }),
          }),
        },
      ],
    });
    await cannon(signinOpts(2), pid);
    const signin = await cannon(signinOpts(duration), pid);

    // Refresh: each connection rotates its own chain.
    const tokens = sessions.map((s) => s.refresh_token as string);
    let next = 0;
    const refreshOpts = (d: number): autocannon.Options => ({
      url: `${url}/auth/v1/token?grant_type=refresh_token`,
      connections: CONNECTIONS,
      duration: d,
      method: 'POST',
      headers,
      requests: [
        {
          setupRequest: (req, context: Record<string, unknown>) => {
            if (context.slot === undefined) context.slot = next++ % tokens.length;
            return { ...req, body: JSON.stringify({ refresh_token: tokens[context.slot as number] }) };
          },
          onResponse: (status, body, context: Record<string, unknown>) => {
            if (status === 200) tokens[context.slot as number] = JSON.parse(body).refresh_token;
          },
        },
      ],
    });
    await cannon(refreshOpts(2), pid);
    const refresh = await cannon(refreshOpts(duration), pid);
    return { label, signin, refresh };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const hashRate = await argon2Rate(duration);
console.log(`argon2id verify (hash-bound limit): ${hashRate.toFixed(1)}/s`);
const results = [];
const dataDir = mkdtempSync(join(tmpdir(), 'namaa-bench-'));
try {
  results.push(await measure('PGlite', { DATA_DIR: dataDir }));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (await postgresReachable(pgUrl)) {
  const database = await createFreshDatabase(pgUrl, 'namaa_bench');
  try {
    results.push(await measure('PostgreSQL', { DATABASE_URL: database.url }));
  } finally {
    await database.drop();
  }
} else console.log(`PostgreSQL at ${pgUrl} not reachable: skipped`);

const rows = results.map((r) => ({
  database: r.label,
  'sign-in/s': r.signin.rps.toFixed(1),
  'sign-in % of hash limit': `${((100 * r.signin.rps) / hashRate).toFixed(0)}%`,
  'sign-in p99 ms': r.signin.p99,
  'sign-in non-2xx': r.signin.non2xx,
  'sign-in CPU µs/req': r.signin.cpuUsPerRequest,
  'refresh/s': r.refresh.rps.toFixed(0),
  'refresh p99 ms': r.refresh.p99,
  'refresh non-2xx': r.refresh.non2xx,
  'refresh CPU µs/req': r.refresh.cpuUsPerRequest,
}));
console.table(rows);
const out = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  durationSeconds: duration,
  connections: CONNECTIONS,
  argon2VerifyPerSecond: hashRate,
  loadAverageAtEnd: loadavg(),
  results,
};
writeFileSync(join(root, 'bench/results/auth-throughput.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log('written bench/results/auth-throughput.json');
