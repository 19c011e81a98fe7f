/**
 * The service's footprint (issue #19; not a test): `node bench/footprint.ts [--load 60] [--rest 30]
 * [--restarts 3] [--pg postgres://root@127.0.0.1:5432/test] [--only pg,pg-deployed,pglite,pglite-deployed]
 * [--env NAME=value …]`
 *
 * The product as `npm start` runs it (scripts/start.mjs: site and API in one process, the built
 * site served; LOG_LEVEL=warn as the issue measured), on PostgreSQL (a fresh database) and on the
 * embedded database (a fresh DATA_DIR), each as `npm start` runs it (its node flags and environment
 * defaults read from package.json's start script) and as the systemd unit and the Docker image run
 * it ("-deployed": MALLOC_ARENA_MAX=2, NODE_OPTIONS=--max-semi-space-size=4; the same settings since
 * `npm start` took them, reached the unit's way). For each:
 * 1. first start → healthy (the first GET /auth/v1/health that answers 200), RSS 8 s later (idle);
 * 2. the mixed load of `npm run bench:load` (64 connections, sign-in 20 %, refresh 40 %, GET /user
 *    40 %) for `--load` s, RSS sampled every 500 ms (peak) and right after;
 * 3. `--rest` s idle, RSS again (does it return toward idle?);
 * 4. `--restarts` times: SIGTERM, start again on the same data, time to healthy, idle RSS.
 * Each mode has its own compile cache (NODE_COMPILE_CACHE), filled by its first start.
 * Prints a table; writes bench/results/footprint.json. Builds the site first if it is missing.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../apps/auth/test/support/entry-process.ts';
import { createFreshDatabase } from '../apps/auth/test/support/fresh-database.ts';
import { emptyRecord, LOAD_ENV, rssMiB, runMixedLoad, seedSessions } from './support/mixed-load.ts';

const { values: args } = parseArgs({
  options: {
    load: { type: 'string', default: '60' },
    rest: { type: 'string', default: '30' },
    restarts: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    pg: { type: 'string', default: 'postgres://root@127.0.0.1:5432/test' },
    only: { type: 'string' },
    // Extra environment for every mode, e.g. `--env MALLOC_TRIM_THRESHOLD_=131072` (to try a setting).
    env: { type: 'string', multiple: true },
  },
});
const root = new URL('..', import.meta.url).pathname;
const LOAD_SECONDS = Number(args.load);
const REST_SECONDS = Number(args.rest);
const RESTARTS = Number(args.restarts);
const CONNECTIONS = Number(args.connections);
const IDLE_WAIT_MS = 8000; // the measure: 8 s after health first answers
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number) => Math.round(x * 10) / 10;

type Running = { url: string; child: ChildProcess; healthyMs: number };

/**
 * What `npm start` runs (package.json's start script): its node flags and its environment defaults
 * (`VAR=${VAR:-value}`), read from the script so the benchmark measures exactly that.
 */
function npmStartCommand(): { nodeArgs: string[]; env: Record<string, string> } {
  const script = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const nodeArgs =
    /\bnode\s+(.*?)\s*scripts\/start\.mjs/.exec(script)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  const env = Object.fromEntries(
    [...script.matchAll(/\b([A-Z_]+)=\$\{\1:-([^}]*)\}/g)].map((m) => [m[1] as string, m[2] as string]),
  );
  return { nodeArgs, env };
}
const NPM_START = npmStartCommand();

async function start(env: Record<string, string>, nodeArgs: string[] = []): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'scripts/start.mjs')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      SITE_URL: url,
      LOG_LEVEL: 'warn',
      SKIP_SITE_BUILD: 'true',
      ...LOAD_ENV,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/auth/v1/health`)).status === 200)
        return { url, child, healthyMs: performance.now() - t0 };
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 120_000) throw new Error('the service did not become healthy in 120 s');
    await sleep(20);
  }
}

async function stop(r: Running): Promise<void> {
  if (r.child.exitCode !== null) return;
  r.child.kill('SIGTERM');
  await new Promise((done) => r.child.once('exit', done));
}

async function idleRss(r: Running): Promise<number> {
  await sleep(IDLE_WAIT_MS);
  return round(rssMiB(r.child.pid));
}

async function measure(name: string, env: Record<string, string>, nodeArgs: string[] = []) {
  log(`${name}: first start`);
  let running = await start(env, nodeArgs);
  const firstStartMs = Math.round(running.healthyMs);
  const idle = await idleRss(running);
  log(`  healthy after ${firstStartMs} ms, idle RSS ${idle} MiB`);

  const sessions = await seedSessions([running.url], CONNECTIONS);
  const record = emptyRecord();
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(running.child.pid));
  }, 500);
  const loadStarted = Date.now();
  await runMixedLoad([running.url], sessions, loadStarted + LOAD_SECONDS * 1000, record);
  clearInterval(sampler);
  const requests = Object.values(record.latencies).reduce((n, xs) => n + xs.length, 0);
  const afterLoad = round(rssMiB(running.child.pid));
  log(
    `  ${LOAD_SECONDS} s of mixed load: ${requests} requests, peak RSS ${round(peak)} MiB, after ${afterLoad} MiB`,
  );
  await sleep(REST_SECONDS * 1000);
  const afterRest = round(rssMiB(running.child.pid));
  log(`  after ${REST_SECONDS} s idle: ${afterRest} MiB`);

  const restarts: Array<{ healthyMs: number; idleMiB: number }> = [];
  for (let i = 0; i < RESTARTS; i++) {
    await stop(running);
    running = await start(env, nodeArgs);
    const healthyMs = Math.round(running.healthyMs);
    restarts.push({ healthyMs, idleMiB: await idleRss(running) });
    log(`  restart ${i + 1}: healthy after ${healthyMs} ms, idle RSS ${restarts.at(-1)?.idleMiB} MiB`);
  }
  await stop(running);
  return {
    firstStartMs,
    idleMiB: idle,
    load: {
      seconds: LOAD_SECONDS,
      connections: CONNECTIONS,
      requests,
      perSecond: round(requests / LOAD_SECONDS),
      fiveXx: record.fiveXx,
      lostSessions: record.lostSessions,
      networkErrors: record.networkErrors,
      peakMiB: round(peak),
      afterMiB: afterLoad,
      peakOverIdle: round(peak / idle),
    },
    afterRestMiB: afterRest,
    restarts,
  };
}

if (!existsSync(join(root, 'apps/web/build/client/index.html'))) {
  log('building the site (it is served, as npm start serves it)…');
  const built = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}

const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
const loadBefore = loadavg()[0];
const modes = (args.only ?? 'pg,pg-deployed,pglite,pglite-deployed').split(',');
// What deploy/systemd/namaa@.service and deploy/Dockerfile add to `node apps/auth/src/main.ts`.
const DEPLOYED = { MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=4' };
const extraEnv = Object.fromEntries((args.env ?? []).map((pair) => pair.split(/=(.*)/s).slice(0, 2)));
for (const mode of modes) {
  // Each mode has its own compile cache (main.ts turns Node's on), kept from its first start to its
  // restarts as the systemd unit's CacheDirectory keeps it: V8's cached code depends on the flags, so
  // a cache shared by modes with different flags would be rejected and rewritten at every start.
  const compileCache = mkdtempSync(join(tmpdir(), 'namaa-footprint-cache-'));
  const deployed = mode.endsWith('-deployed');
  const arena: Record<string, string> = {
    ...(deployed ? DEPLOYED : NPM_START.env),
    NODE_COMPILE_CACHE: compileCache,
    ...extraEnv,
  };
  const nodeArgs = deployed ? [] : NPM_START.nodeArgs;
  const label = `${mode.startsWith('pglite') ? 'embedded PGlite' : 'PostgreSQL'}${mode.endsWith('-deployed') ? ', as deployed' : ''}`;
  if (mode.startsWith('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'namaa-footprint-'));
    try {
      results[mode] = await measure(label, { DATA_DIR: dataDir, ...arena }, nodeArgs);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  } else if (mode.startsWith('pg')) {
    const database = await createFreshDatabase(args.pg, 'namaa_footprint');
    try {
      results[mode] = await measure(label, { DATABASE_URL: database.url, ...arena }, nodeArgs);
    } finally {
      await database.drop();
    }
  } else throw new Error(`--only: unknown mode ${mode} (pg, pg-deployed, pglite, pglite-deployed)`);
  rmSync(compileCache, { recursive: true, force: true });
}

const rows = Object.entries(results).map(([db, r]) => ({
  database: db,
  'idle MiB': r.idleMiB,
  'peak MiB (load)': r.load.peakMiB,
  'after load': r.load.afterMiB,
  'after rest': r.afterRestMiB,
  'req/s': r.load.perSecond,
  'first start ms': r.firstStartMs,
  'restart ms': r.restarts.map((x) => x.healthyMs).join(' / '),
  'idle after restart': r.restarts.map((x) => x.idleMiB).join(' / '),
}));
console.table(rows);
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  loadAverage: { before: round(loadBefore ?? 0), after: round(loadavg()[0] ?? 0) },
  command: `node bench/footprint.ts ${process.argv.slice(2).join(' ')}`.trim(),
  ...results,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/footprint.json'), `${JSON.stringify(result, null, 2)}\n`);
log('written bench/results/footprint.json');
const failed = Object.values(results).some(
  (r) => r.load.fiveXx + r.load.lostSessions + r.load.networkErrors > 0,
);
process.exit(failed ? 1 : 0);
