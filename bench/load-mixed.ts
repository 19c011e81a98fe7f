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
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../apps/auth/test/support/entry-process.ts';
import { createFreshDatabase } from '../apps/auth/test/support/fresh-database.ts';
import { emptyRecord, LOAD_ENV, rssMiB, runMixedLoad, seedSessions } from './support/mixed-load.ts';

const root = new URL('..', import.meta.url).pathname;
const DURATION = Number(process.env.BENCH_DURATION ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';

type Instance = { url: string; child: ChildProcess };

async function startInstance(databaseUrl: string): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'apps/auth/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      SITE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      SITE_DIR: '/nonexistent',
      ...LOAD_ENV,
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

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

// A fresh database for this run.
const database = await createFreshDatabase(PG_URL, 'namaa_load');
const dbUrl = new URL(database.url);

const instances: Instance[] = [];
let exitCode = 0;
try {
  // The first instance migrates; the second starts on the migrated database.
  instances.push(await startInstance(dbUrl.href));
  instances.push(await startInstance(dbUrl.href));
  const urls = instances.map((i) => i.url);

  console.log(`seeding ${CONNECTIONS} accounts…`);
  const sessions = await seedSessions(urls, CONNECTIONS);

  // Warm-up (JIT, pools), then RSS "before", the measured run, RSS "after".
  await runMixedLoad(urls, sessions, Date.now() + 3000);
  const rssBefore = instances.map((i) => rssMiB(i.child.pid));
  console.log(`running ${DURATION} s at ${CONNECTIONS} connections on 2 instances…`);
  const started = Date.now();
  const run = emptyRecord();
  await runMixedLoad(urls, sessions, started + DURATION * 1000, run);
  const elapsed = (Date.now() - started) / 1000;
  const rssAfter = instances.map((i) => rssMiB(i.child.pid));
  const { latencies, statuses: statusCounts, fiveXx, lostSessions, networkErrors: otherErrors } = run;
  const lostDetail = run.problems;

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
