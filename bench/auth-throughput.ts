/**
 * Auth service throughput on this machine (not a test): `node bench/auth-throughput.ts`
 *
 * 1. argon2id verify rate alone (m=19 MiB, t=2, p=1) at 1, one-per-core and 4 at a time: the best is
 *    the hash-bound limit of password sign-in.
 * 2. The sign-in ceiling: the same load as 3. against bench/bare-verify-server.ts (HTTP, JSON and the
 *    service's own verifyPassword, nothing else): the most any sign-in can reach on this machine
 *    (skipped with BENCH_ONLY=refresh).
 * 3. Password sign-ins/s and p99 at 32 connections (POST /token?grant_type=password).
 * 4. Refresh-token rotations/s at 32 connections: every connection follows its own chain (each
 *    response's refresh_token is used for the next request), so each request is a real rotation.
 * On PGlite, and on PostgreSQL when reachable (a fresh database, dropped afterwards).
 * The service runs as a child process, so autocannon does not share its event loop. Requests/s are
 * noisy on a shared VM, so it also reports where the machine's CPU went per request (from /proc):
 * the service process (all threads, and split by thread: main = the event loop, libuv-worker = the
 * argon2 pool, V8Worker = V8's helpers), this load generator, PostgreSQL's server processes, and the
 * whole machine.
 * Rate limits are counted (so their statements are part of the cost) but set too high to trip.
 * Writes bench/results/auth-throughput.json. Options: BENCH_DURATION (s, default 10), BENCH_PG_URL,
 * BENCH_DB (pglite | postgres: only that one), BENCH_ONLY (signin | refresh: only that phase),
 * BENCH_SIGNIN_LIMITS=off (sign-in rate limits and back-off off, to price their statements),
 * BENCH_NODE_ARGS (extra node flags for the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
 * profile it under load), PGLITE_FSYNC=false (PGlite without its flush per commit, to price it),
 * PGLITE_SHARED_BUFFERS (e.g. 128MB: PGlite's cache at its own default instead of the service's 16MB),
 * BENCH_HOOK=http (the custom access-token hook on, pointed at bench/access-token-hook.ts, a local
 * HTTP hook in its own process, to price a hook call per token).
 * Per-request cost of each hot path in isolation: bench/auth-hot-paths.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const phase = process.env.BENCH_ONLY; // 'signin' | 'refresh' to run one phase
const PASSWORD = 'bench-password-123';

/** argon2id verifies per second with `inFlight` of them running at a time. */
async function argon2Rate(seconds: number, inFlight: number): Promise<number> {
  const stored = await hash(PASSWORD, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
  let done = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < end) {
        await verify(stored, PASSWORD);
        done++;
      }
    }),
  );
  return done / seconds;
}

/**
 * The hash-bound limit: the best verify rate this machine reaches, whatever the parallelism (one
 * per core is best here: argon2 is memory-bound; libuv's default 4 threads on 2 cores is ~20% slower).
 */
async function hashBoundLimit(
  seconds: number,
): Promise<{ rate: number; inFlight: number; rates: Record<number, number> }> {
  const rates: Record<number, number> = {};
  for (const inFlight of [...new Set([1, cpus().length, 4])])
    rates[inFlight] = await argon2Rate(seconds, inFlight);
  const [inFlight, rate] = Object.entries(rates).sort((a, b) => b[1] - a[1])[0] as [string, number];
  return { rate, inFlight: Number(inFlight), rates };
}

/** Starts a server script as a child process and waits for its "running at <url>" line. */
async function startChild(
  script: string,
  env: Record<string, string | undefined>,
  nodeArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeArgs, join(root, script)], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/running at (http:\/\/[^\s]+)/);
      if (m) resolve((m[1] as string).replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** BENCH_HOOK=http: a local custom access-token hook in its own process, and the settings for it. */
async function startHook(): Promise<{ env: Record<string, string>; child?: ChildProcess }> {
  if (process.env.BENCH_HOOK !== 'http') return { env: {} };
  const child = spawn(process.execPath, [join(root, 'bench/access-token-hook.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().split('\n')[0] as string));
  });
  const { url, secret } = JSON.parse(first) as { url: string; secret: string };
  child.stdout?.destroy();
  child.unref();
  return {
    child,
    env: {
      HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: 'true',
      HOOK_CUSTOM_ACCESS_TOKEN_URI: url,
      HOOK_CUSTOM_ACCESS_TOKEN_SECRETS: secret,
    },
  };
}
const hook = await startHook();
const hookEnv = hook.env;
process.on('exit', () => hook.child?.kill());

function startService(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return startChild(
    'apps/auth/src/main.ts',
    {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      MAILER_AUTOCONFIRM: 'true',
      SITE_DIR: '/nonexistent',
      // Counted but never tripped: every request comes from one client IP. BENCH_SIGNIN_LIMITS=off
      // turns the sign-in limits and back-off off (0), to measure what their statements cost.
      ...(process.env.BENCH_SIGNIN_LIMITS === 'off'
        ? {
            RATE_LIMIT_SIGNIN_PER_IP: '0',
            RATE_LIMIT_SIGNIN_PER_ACCOUNT: '0',
            RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '0',
          }
        : { RATE_LIMIT_SIGNIN_PER_IP: '1000000', RATE_LIMIT_SIGNIN_PER_ACCOUNT: '1000000' }),
      RATE_LIMIT_OTP_PER_IP: '1000000',
      // PGLITE_FSYNC=false measures PGlite without its flush per commit (the service's default is on).
      ...(process.env.PGLITE_FSYNC ? { PGLITE_FSYNC: process.env.PGLITE_FSYNC } : {}),
      // PGLITE_SHARED_BUFFERS prices PGlite's buffer cache against the service's default (16MB).
      ...(process.env.PGLITE_SHARED_BUFFERS
        ? { PGLITE_SHARED_BUFFERS: process.env.PGLITE_SHARED_BUFFERS }
        : {}),
      ...hookEnv,
      ...env,
    },
    nodeArgs,
  );
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { apikey: ANON, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

type Run = {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Service process (all its threads) CPU µs per request. */
  cpuUsPerRequest: number;
  /** Where the whole machine's CPU went, µs per request: what caps throughput on 2 shared cores. */
  breakdownUsPerRequest: { service: number; loadGenerator: number; postgres: number; machine: number };
  /** The service's CPU µs per request by thread name (main = the event loop). */
  serviceThreadsUsPerRequest: Record<string, number>;
};

/** A /proc/<pid>[/task/<tid>]/stat file: its command name and utime + stime in µs (100 Hz ticks). */
function readStat(path: string): { name: string; cpuUs: number } {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    cpuUs: (Number(fields[11]) + Number(fields[12])) * 10_000,
  };
}

/** Sums readStat over the entries of a /proc folder that still exist; `key` names (or skips) each. */
function sumStats(
  dir: string,
  key: (entry: string, name: string) => string | undefined,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { name, cpuUs } = readStat(`${dir}/${entry}/stat`);
      const k = key(entry, name);
      if (k !== undefined) out[k] = (out[k] ?? 0) + cpuUs;
    } catch {
      // it ended between readdir and read
    }
  }
  return out;
}

function processCpuUs(pid: number): number {
  return readStat(`/proc/${pid}/stat`).cpuUs;
}

/** The service's CPU µs by thread: its main (event-loop) thread, libuv's pool (argon2), V8's helpers. */
function threadCpuUs(pid: number): Record<string, number> {
  return sumStats(`/proc/${pid}/task`, (tid, name) => (tid === String(pid) ? 'main' : name));
}

/** CPU µs of every PostgreSQL server process (the database's share of the machine). */
function postgresCpuUs(): number {
  return sumStats('/proc', (_pid, name) => (name === 'postgres' ? 'postgres' : undefined)).postgres ?? 0;
}

/** Non-idle CPU µs of the whole machine, all cores (/proc/stat, 100 Hz ticks). */
function machineCpuUs(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string)
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return (fields.slice(0, 8).reduce((a, b) => a + b, 0) - idle) * 10_000;
}

function cannon(opts: autocannon.Options, pid: number): Promise<Run> {
  const service0 = processCpuUs(pid);
  const threads0 = threadCpuUs(pid);
  const self0 = process.cpuUsage();
  const pg0 = postgresCpuUs();
  const machine0 = machineCpuUs();
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, r) => {
      if (err) return reject(err);
      const n = Math.max(1, r.requests.total);
      const self = process.cpuUsage(self0);
      const service = Math.round((processCpuUs(pid) - service0) / n);
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
        cpuUsPerRequest: service,
        serviceThreadsUsPerRequest: Object.fromEntries(
          Object.entries(threadCpuUs(pid))
            .map(([name, us]) => [name, Math.round((us - (threads0[name] ?? 0)) / n)] as const)
            .filter(([, us]) => us > 0),
        ),
        breakdownUsPerRequest: {
          service,
          loadGenerator: Math.round((self.user + self.system) / n),
          postgres: Math.round((postgresCpuUs() - pg0) / n),
          machine: Math.round((machineCpuUs() - machine0) / n),
        },
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
    if (process.env.BENCH_HOOK === 'http') {
      // The hook really ran: its claim is in the token.
      const token = String(sessions[0]?.access_token ?? '');
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
      if (claims.tenant_id !== 'bench-tenant') throw new Error('BENCH_HOOK=http: the hook claim is missing');
    }

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
    const skipped: Run = {
      rps: 0,
      p50: 0,
      p99: 0,
      non2xx: 0,
      errors: 0,
      cpuUsPerRequest: 0,
      breakdownUsPerRequest: { service: 0, loadGenerator: 0, postgres: 0, machine: 0 },
      serviceThreadsUsPerRequest: {},
    };
    let signin = skipped;
    if (phase !== 'refresh') {
      await cannon(signinOpts(2), pid);
      signin = await cannon(signinOpts(duration), pid);
    }

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
    let refresh = skipped;
    if (phase !== 'signin') {
      await cannon(refreshOpts(2), pid);
      refresh = await cannon(refreshOpts(duration), pid);
    }
    return { label, signin, refresh };
  } finally {
    await stopChild(child);
  }
}

/**
 * The same sign-in load against bench/bare-verify-server.ts, which does nothing but HTTP, JSON and the
 * service's own verifyPassword: the most a password sign-in can reach here with this load generator.
 */
async function measureCeiling(): Promise<Run> {
  const { url, child } = await startChild('bench/bare-verify-server.ts', {
    PATH: process.env.PATH,
    BENCH_PASSWORD: PASSWORD,
  });
  try {
    const opts = (d: number): autocannon.Options => ({
      url,
      connections: CONNECTIONS,
      duration: d,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
    });
    await cannon(opts(2), child.pid as number);
    return await cannon(opts(duration), child.pid as number);
  } finally {
    await stopChild(child);
  }
}

const limit = await hashBoundLimit(Math.max(3, Math.round(duration / 2)));
const hashRate = limit.rate;
console.log(
  `argon2id verify rate by parallelism: ${Object.entries(limit.rates)
    .map(([k, v]) => `${k} at a time ${v.toFixed(1)}/s`)
    .join(', ')}; hash-bound limit ${hashRate.toFixed(1)}/s`,
);
const ceiling = phase === 'refresh' ? undefined : await measureCeiling();
if (ceiling)
  console.log(
    `sign-in ceiling (a bare server: HTTP + the same verify, nothing else): ${ceiling.rps.toFixed(1)}/s = ${(
      (100 * ceiling.rps) / hashRate
    ).toFixed(0)}% of the hash-bound limit, p99 ${ceiling.p99} ms, non-2xx ${ceiling.non2xx}`,
  );
const results = [];
const dataDir = mkdtempSync(join(tmpdir(), 'namaa-bench-'));
const only = process.env.BENCH_DB; // 'pglite' | 'postgres' to run one
try {
  if (only !== 'postgres') results.push(await measure('PGlite', { DATA_DIR: dataDir }));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (only === 'pglite') {
  // PostgreSQL skipped on request
} else if (await postgresReachable(pgUrl)) {
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
  'sign-in % of ceiling': ceiling ? `${((100 * r.signin.rps) / ceiling.rps).toFixed(0)}%` : '-',
  'sign-in p99 ms': r.signin.p99,
  'sign-in non-2xx': r.signin.non2xx,
  'sign-in CPU µs/req': r.signin.cpuUsPerRequest,
  'refresh/s': r.refresh.rps.toFixed(0),
  'refresh p99 ms': r.refresh.p99,
  'refresh non-2xx': r.refresh.non2xx,
  'refresh CPU µs/req': r.refresh.cpuUsPerRequest,
}));
console.table(rows);
console.log(
  'Machine CPU per request (µs, both cores): service process (and by thread: main = event loop, libuv-worker = argon2), load generator (this process), PostgreSQL server',
);
const breakdown = (label: string, operation: string, run: Run) => ({
  database: label,
  operation,
  ...run.breakdownUsPerRequest,
  'service by thread': Object.entries(run.serviceThreadsUsPerRequest)
    .map(([name, us]) => `${name} ${us}`)
    .join(', '),
});
console.table([
  ...(ceiling ? [breakdown('(none)', 'bare ceiling', ceiling)] : []),
  ...results.flatMap((r) => (['signin', 'refresh'] as const).map((op) => breakdown(r.label, op, r[op]))),
]);
const out = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  durationSeconds: duration,
  connections: CONNECTIONS,
  argon2VerifyPerSecond: hashRate,
  argon2VerifyPerSecondByParallelism: limit.rates,
  // bench/bare-verify-server.ts under the sign-in load: HTTP + the same verify, nothing else.
  signinCeiling: ceiling ?? null,
  loadAverageAtEnd: loadavg(),
  results,
};
writeFileSync(join(root, 'bench/results/auth-throughput.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log('written bench/results/auth-throughput.json');
