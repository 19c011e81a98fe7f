/**
 * The scale benchmark (not a test): `npm run bench:scale -- --users 100000 [options]`
 *
 * 1. Bulk-loads a database with `--users` accounts and a month of their traffic through set-based
 *    SQL shaped like the service's own writes (apps/auth/test/support/scale-data.ts: users and
 *    identities, two sessions each holding its active refresh token, links, PKCE flow states,
 *    MFA factors and challenges, audit rows, rate-limit counters, delivered mail), every account
 *    sharing ONE real argon2id hash (so a sign-in costs what a real one does). Progress on stderr.
 * 2. Sizes (per table and per row), then the service's own sweep with the default settings
 *    (core/sweep.ts: batch count, longest batch), then the sizes again, after VACUUM FULL (what the
 *    steady state holds; a plain VACUUM keeps the file and reuses the space).
 * 3. Starts the service (child process) on that database and measures, with autocannon at
 *    `--connections`: password sign-in of random accounts, GET /user with the access tokens of
 *    random sessions, and refresh of random sessions' tokens (each response's token replaces the
 *    session's for its next turn). Per phase: requests/s, latency, the CPU per request of the
 *    service and (PostgreSQL) of every `postgres` process, the hypervisor's steal, and on PostgreSQL
 *    the WAL bytes and full-page images per request.
 * 4. The same three against a small database (`--small`, default 2,000 accounts) for comparison,
 *    both services running side by side: with `--rounds n` the two sizes take turns phase by phase,
 *    n times, and the summary gives each round's big/small ratio and their median (on a shared VM
 *    the throughput of one run moves as much as the effect being measured; a pair run a minute
 *    apart sees the same weather).
 * 5. The sweep the service would run next, on the big database after the phases' churn, with its
 *    own batch policy (on PGlite: how long each VACUUM holds the event loop).
 *
 * Databases: PostgreSQL by URL (`--pg <url>`, default postgres://root@127.0.0.1:5432/scale; the small
 * one is `<name>_small` on the same server, both created when missing), or PGlite by directory
 * (`--pglite <dir>`; the small one in `<dir>-small`). A measured run loads both afresh; `--size-only` reuses a
 * database that already holds the requested users unless `--reload`.
 * Results: bench/results/scale-<kind>-<users>.json.
 * Options: --duration s (10), --connections n (32), --small n (2000), --rounds n (1), --reload, --no-small,
 * --service-sweep (sweep the loaded month with the service's own batch policy and pauses, not the
 * benchmark's backlog policy), --prewarm (PostgreSQL: read every table and index into shared_buffers, then CHECKPOINT, before
 * measuring), --warmup s (2: load before each phase of the first round; a longer one lets the pages a phase
 * writes be dirtied once since the checkpoint, as on a server in its steady state, so the measured
 * window is not all first-touch full-page images), --size-only (load, sweep and size only, with each
 * table's heap and every index apart: where the bytes per account go; no throughput phases),
 * --service-env NAME=value (repeatable: a setting for the measured services).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../apps/auth/src/config.ts';
import { runSweep, sweepTasks } from '../apps/auth/src/core/sweep.ts';
import { hashPassword } from '../apps/auth/src/crypto/passwords.ts';
import { type Database, openDatabase, queryRows } from '../apps/auth/src/db/client.ts';
import { migrate } from '../apps/auth/src/db/migrate.ts';
import { DEFAULT_NAMESPACE } from '../apps/auth/src/db/namespace.ts';
import { GROWING_TABLES, MONTH_OF_HISTORY, scaleChunkSql } from '../apps/auth/test/support/scale-data.ts';
import { machineTicks, postgresCpuByPid, postgresCpuSpent, processCpuMs } from './support/cpu-time.ts';
import { randomSessionTokens } from './support/random-refresh.ts';
import { median } from './support/stats.ts';

const { values: args } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    pg: { type: 'string' },
    pglite: { type: 'string' },
    small: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
    reload: { type: 'boolean', default: false },
    'no-small': { type: 'boolean', default: false },
    prewarm: { type: 'boolean', default: false },
    'service-sweep': { type: 'boolean', default: false },
    'size-only': { type: 'boolean', default: false },
    // Extra settings for the measured services, e.g. `--service-env PGLITE_SHARED_BUFFERS=256MB`.
    'service-env': { type: 'string', multiple: true },
  },
});
const root = new URL('..', import.meta.url).pathname;
const ANON = 'sb_publishable_namaa_development_key';
const PASSWORD = 'scale-bench-password';
const USERS = Number(args.users);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const WARMUP = Number(args.warmup);
const ROUNDS = Math.max(1, Number(args.rounds));
const SERVICE_ENV = Object.fromEntries(
  (args['service-env'] ?? []).map((kv) => {
    const at = kv.indexOf('=');
    if (at < 1) throw new Error(`--service-env ${kv}: NAME=value`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  }),
);
const CHUNK = 10_000;
const log = (line: string) => process.stderr.write(`${line}\n`);

type Target = { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string };

function targets(): { big: Target; small: Target } {
  if (args.pglite)
    return {
      big: { kind: 'pglite', dir: args.pglite },
      small: { kind: 'pglite', dir: `${args.pglite}-small` },
    };
  const url = new URL(args.pg ?? 'postgres://root@127.0.0.1:5432/scale');
  const small = new URL(url);
  small.pathname = `${url.pathname}_small`;
  return { big: { kind: 'postgres', url: url.href }, small: { kind: 'postgres', url: small.href } };
}

async function ensurePgDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = u.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`database name ${name}: letters, digits and _ only`);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.href });
  await c.connect();
  try {
    const { rows } = await c.query('select 1 from pg_database where datname = $1', [name]);
    if (rows.length === 0) await c.query(`create database ${name}`);
  } finally {
    await c.end();
  }
}

type Raw = { query(t: string): Promise<unknown> };
/** Bulk statements and VACUUM FULL run without the service pool's 10 s statement timeout. */
const raws = new WeakMap<Database, Raw & { end?(): Promise<void> }>();

async function open(t: Target): Promise<Database> {
  if (t.kind === 'postgres') await ensurePgDatabase(t.url);
  const database = await openDatabase(
    t.kind === 'postgres'
      ? { databaseUrl: t.url, dataDir: '' }
      : // The services' buffer cache when --service-env sets it (the sweep after the phases runs here).
        { dataDir: t.dir, fsync: false, sharedBuffers: SERVICE_ENV.PGLITE_SHARED_BUFFERS },
  );
  await migrate(database);
  if (t.kind === 'postgres') {
    // The service's tables live in its namespace (db/namespace.ts); the bulk client must look there.
    const c = new pg.Client({ connectionString: t.url, options: `-c search_path=${DEFAULT_NAMESPACE}` });
    await c.connect();
    await c.query('set statement_timeout = 0');
    raws.set(database, c);
  } else raws.set(database, (database.db as unknown as { $client: Raw }).$client);
  return database;
}

const exec = (database: Database, text: string) => (raws.get(database) as Raw).query(text);

async function count(database: Database, query: ReturnType<typeof sql>): Promise<number> {
  return Number((await queryRows<{ n: string | number }>(database.db, query))[0]?.n ?? 0);
}

const TABLES = GROWING_TABLES;

async function sizes(database: Database): Promise<Record<string, { rows: number; bytes: number }>> {
  const out: Record<string, { rows: number; bytes: number }> = {};
  for (const table of TABLES) {
    const t = sql.raw(table);
    out[table] = {
      rows: await count(database, sql`select count(*) as n from ${t}`),
      bytes: await count(database, sql`select pg_total_relation_size(${table}::regclass) as n`),
    };
  }
  return out;
}
/** Each relation of the growing tables apart (heap with TOAST, every index), largest first. */
async function breakdown(database: Database): Promise<{ name: string; bytes: number }[]> {
  const tables = TABLES.map((t) => `'${t}'::regclass`).join(', ');
  const rows = await queryRows<{ name: string; bytes: string }>(
    database.db,
    sql.raw(`select c.relname as name, pg_table_size(c.oid) as bytes from pg_class c where c.oid in (${tables})
      union all
      select i.indexrelid::regclass::text, pg_relation_size(i.indexrelid) from pg_index i where i.indrelid in (${tables})
      order by 2 desc`),
  );
  return rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) }));
}
const total = (s: Record<string, { bytes: number }>) => Object.values(s).reduce((a, b) => a + b.bytes, 0);
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** Loads `users` accounts (if the database does not hold them already); returns the load time, s. */
async function load(
  database: Database,
  users: number,
  hash: string,
  reload: boolean,
): Promise<number | undefined> {
  const have = await count(database, sql`select count(*) as n from users where email like '%@scale.test'`);
  // Within 1 %: the default sweeps delete the month's never-confirmed sign-ups past their retention
  // (a few dozen per million), and that must not make the next run load a million accounts again.
  if (have <= users && have >= users * 0.99 && !reload) {
    log(`  ${users.toLocaleString('en')} accounts already loaded: reusing them`);
    return undefined;
  }
  if (have > 0) {
    log('  emptying the tables (--reload, or a different size)');
    await exec(database, `truncate ${TABLES.join(', ')} cascade`);
  }
  const started = Date.now();
  for (let from = 0; from < users; from += CHUNK) {
    const to = Math.min(users, from + CHUNK);
    for (const statement of scaleChunkSql(from, to, hash, MONTH_OF_HISTORY)) await exec(database, statement);
    const s = (Date.now() - started) / 1000;
    const rate = to / s;
    log(
      `  loaded ${to.toLocaleString('en')} / ${users.toLocaleString('en')} accounts (${Math.round(rate)}/s, ${Math.round((users - to) / rate)} s left)`,
    );
  }
  await exec(database, 'analyze');
  return (Date.now() - started) / 1000;
}

function startService(t: Target): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, 'apps/auth/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SITE_DIR: '/nonexistent',
      // Counted, never tripped: the load comes from one address.
      RATE_LIMIT_SIGNIN_PER_IP: '1000000',
      RATE_LIMIT_SIGNIN_PER_ACCOUNT: '1000000',
      ...(t.kind === 'postgres' ? { DATABASE_URL: t.url } : { DATA_DIR: t.dir, PGLITE_FSYNC: 'false' }),
      ...SERVICE_ENV,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/running at (http:\/\/[^\s]+)/);
      if (m) resolve({ url: (m[1] as string).replace('localhost', '127.0.0.1'), child });
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
}

type Run = {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** The service process's CPU per request (on PGlite this includes the database). */
  serviceCpuMs: number;
  /** PostgreSQL's CPU per request (its backends and background workers); PostgreSQL only. */
  databaseCpuMs?: number;
  /** Share of the machine's CPU time the hypervisor gave to other guests during the run. */
  stealPct: number;
  walBytesPerRequest?: number;
  /** Full-page images per request: the first change to a page after a checkpoint logs the whole page. */
  fullPageImagesPerRequest?: number;
  /** Checkpoints that began during the phase (each one makes every page's next change a full image). */
  checkpoints?: number;
};

type WalMark = { lsn: bigint; fpi: number; checkpoints: number };

async function walMark(t: Target): Promise<WalMark | undefined> {
  if (t.kind !== 'postgres') return undefined;
  const c = new pg.Client({ connectionString: t.url });
  await c.connect();
  try {
    const { rows } = await c.query(`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as b,
        (select wal_fpi from pg_stat_wal)::text as fpi,
        (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::text as cp`);
    return {
      lsn: BigInt(rows[0].b.split('.')[0]),
      fpi: Number(rows[0].fpi),
      checkpoints: Number(rows[0].cp),
    };
  } finally {
    await c.end();
  }
}

async function cannon(t: Target, servicePid: number, opts: autocannon.Options): Promise<Run> {
  const wal0 = await walMark(t);
  const cpu0 = { service: processCpuMs(servicePid), db: postgresCpuByPid(), machine: machineTicks() };
  const r = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result))),
  );
  const cpu1 = { service: processCpuMs(servicePid), db: postgresCpuByPid(), machine: machineTicks() };
  const wal1 = await walMark(t);
  const n = Math.max(1, r.requests.total);
  const perRequest = (ms: number) => Math.round((ms / n) * 1000) / 1000;
  const run: Run = {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    serviceCpuMs: perRequest(cpu1.service - cpu0.service),
    stealPct:
      Math.round(
        ((cpu1.machine.steal - cpu0.machine.steal) / Math.max(1, cpu1.machine.total - cpu0.machine.total)) *
          1000,
      ) / 10,
  };
  if (wal0 && wal1) {
    run.databaseCpuMs = perRequest(postgresCpuSpent(cpu0.db, cpu1.db));
    run.walBytesPerRequest = Math.round(Number(wal1.lsn - wal0.lsn) / n);
    run.fullPageImagesPerRequest = Math.round(((wal1.fpi - wal0.fpi) / n) * 100) / 100;
    run.checkpoints = wal1.checkpoints - wal0.checkpoints;
  }
  return run;
}

const pick = (n: number) => Math.floor(Math.random() * n);

const PHASES = ['signin', 'getUser', 'refresh'] as const;
type Phase = (typeof PHASES)[number];

/**
 * The service started on one database, ready to load it with any phase as often as asked: the
 * random sessions' current refresh tokens are kept between phases, so a later round refreshes them
 * where the earlier one left them.
 */
async function startBench(t: Target, users: number) {
  const { url, child } = await startService(t);
  const headers = { apikey: ANON, 'content-type': 'application/json' };
  const api = `${url}/auth/v1`;
  const sessionsTotal = users * MONTH_OF_HISTORY.sessionsPerUser;
  try {
    // Random sessions: their current refresh token (the loaded active one until rotated here).
    const sessions = randomSessionTokens(sessionsTotal);
    // Access tokens of 2,000 random sessions for GET /user (one refresh each gives one).
    const access: string[] = [];
    for (let k = 0; k < 2000; k++) {
      const j = pick(sessionsTotal);
      const res = await fetch(`${api}/token?grant_type=refresh_token`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ refresh_token: sessions.tokenOf(j) }),
      });
      const body = (await res.json()) as { access_token?: string; refresh_token?: string };
      if (body.access_token && body.refresh_token) {
        access.push(body.access_token);
        sessions.rotated(j, body.refresh_token);
      }
    }
    if (access.length < 1900) throw new Error(`only ${access.length} of 2000 random sessions refreshed`);

    const options: Record<Phase, (duration: number) => autocannon.Options> = {
      signin: (duration) => ({
        url: `${api}/token?grant_type=password`,
        connections: CONNECTIONS,
        duration,
        method: 'POST',
        headers,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ email: `user${pick(users)}@scale.test`, password: PASSWORD }),
            }),
          },
        ],
      }),
      getUser: (duration) => ({
        url: `${api}/user`,
        connections: CONNECTIONS,
        duration,
        headers: { apikey: ANON },
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              headers: { ...req.headers, authorization: `Bearer ${access[pick(access.length)]}` },
            }),
          },
        ],
      }),
      refresh: (duration) => ({
        url: `${api}/token?grant_type=refresh_token`,
        connections: CONNECTIONS,
        duration,
        method: 'POST',
        headers,
        requests: sessions.requests(),
      }),
    };
    return {
      run: (phase: Phase, duration: number) => cannon(t, child.pid as number, options[phase](duration)),
      async stop() {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      },
    };
  } catch (err) {
    child.kill('SIGTERM');
    throw err;
  }
}

async function prepare(t: Target, users: number, hash: string, reload = Boolean(args.reload)) {
  log(`${t.kind} ${users.toLocaleString('en')} accounts: ${t.kind === 'postgres' ? t.url : t.dir}`);
  const database = await open(t);
  try {
    const loadSeconds = await load(database, users, hash, reload);
    const before = await sizes(database);
    log(`  size before the sweep: ${mb(total(before))}`);
    let batches = 0;
    const config = loadConfig({});
    // A month of history swept at once is a backlog the periodic sweep never meets (it sees ten
    // minutes' worth): sweep it in larger batches, with the same statements. On a busy disk a
    // commit's WAL flush alone exceeds the service's 20 ms target, and smaller batches would not
    // make it shorter.
    // --service-sweep: the service's own batch policy and pauses instead (core/sweep.ts defaults:
    // 20 ms target), to measure how long its batches hold locks on this machine.
    const batchMs: number[] = [];
    const report = await runSweep(database, sweepTasks(config), new Date(), {
      ...(args['service-sweep']
        ? {}
        : {
            policy: { targetMs: 200, initial: 1000, min: 200, max: 20_000 },
            pauseMs: 0,
            pauseRatio: 0, // nothing else runs during this measurement: no pause at all
          }),
      onBatch: (b) => {
        batchMs.push(b.ms);
        if (++batches % 500 === 0) log(`  sweeping: ${batches} batches`);
      },
    });
    batchMs.sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(batchMs[Math.min(batchMs.length - 1, Math.floor(q * batchMs.length))] ?? 0);
    log(
      `  swept with the defaults: ${JSON.stringify(report.deleted)} in ${batches} batches, ${Math.round(report.durationMs / 1000)} s, batch p50 ${at(0.5)} / p99 ${at(0.99)} / longest ${report.maxBatchMs.toFixed(0)} ms, ${batchMs.filter((ms) => ms > 50).length} over 50 ms`,
    );
    const vacuumStarted = Date.now();
    await exec(database, 'vacuum full');
    await exec(database, 'analyze');
    const after = await sizes(database);
    log(
      `  size after the sweep and VACUUM FULL: ${mb(total(after))} (${Math.round((Date.now() - vacuumStarted) / 1000)} s)`,
    );
    if (args.prewarm && t.kind === 'postgres') {
      // A server that has been running holds its hot pages in shared_buffers; a restarted one (as
      // after a settings change) holds none. pg_prewarm reads every table and index of the
      // namespace into shared_buffers, as far as they fit, so both sizes start from a warm cache.
      const warmStarted = Date.now();
      await exec(database, 'create extension if not exists pg_prewarm schema public');
      await exec(
        database,
        `select public.pg_prewarm(c.oid::regclass) from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = '${DEFAULT_NAMESPACE}' and c.relkind in ('r', 'i')`,
      );
      // Then a checkpoint, so that none of the bulk work above (VACUUM FULL writes the whole
      // database into the WAL) lands one in the middle of the measurement.
      await exec(database, 'checkpoint');
      log(`  prewarmed shared_buffers and checkpointed (${Math.round((Date.now() - warmStarted) / 1000)} s)`);
    }
    const batchPercentiles = {
      p50: at(0.5),
      p99: at(0.99),
      over50ms: batchMs.filter((ms) => ms > 50).length,
    };
    return { loadSeconds, before, after, sweep: { ...report, batches, batchPercentiles } };
  } finally {
    await raws.get(database)?.end?.();
    await database.close();
  }
}

const t = targets();
log('hashing the shared password (argon2id, the service parameters)');
const hash = await hashPassword(PASSWORD);
// A measured run loads the big database afresh, as the small one: the benchmark knows each
// session's refresh token only as loaded, and a reused database holds the sessions an earlier run
// refreshed, whose loaded tokens are now replays (each one answered 400 and its session ended: a
// reused million measured 3 % of its refreshes that way after a run of four rounds).
const big = await prepare(t.big, USERS, hash, Boolean(args.reload) || !args['size-only']);
if (args['size-only']) {
  const database = await open(t.big);
  try {
    const parts = await breakdown(database);
    const all = parts.reduce((a, p) => a + p.bytes, 0);
    console.log(`\n${t.big.kind}, ${USERS.toLocaleString('en')} accounts, after the sweep and VACUUM FULL:`);
    console.log('| relation | MiB | bytes per account |');
    for (const p of parts.filter((x) => x.bytes > 0))
      console.log(`| ${p.name} | ${(p.bytes / 1048576).toFixed(1)} | ${Math.round(p.bytes / USERS)} |`);
    console.log(`| all | ${(all / 1048576).toFixed(1)} | ${Math.round(all / USERS)} |`);
  } finally {
    await raws.get(database)?.end?.();
    await database.close();
  }
  process.exit(0);
}
const SMALL = Number(args.small);
// Loaded afresh too (a few seconds), for the same reason.
const small = args['no-small'] ? undefined : await prepare(t.small, SMALL, hash, true);

log(
  `measuring ${USERS.toLocaleString('en')}${small ? ` against ${SMALL.toLocaleString('en')}` : ''} accounts: ${ROUNDS} round(s), ${DURATION} s per phase, ${CONNECTIONS} connections`,
);
const benches: Array<{ name: 'big' | 'small'; bench: Awaited<ReturnType<typeof startBench>> }> = [
  { name: 'big', bench: await startBench(t.big, USERS) },
];
const runs = { big: emptyRuns(), small: emptyRuns() };
try {
  if (small) benches.push({ name: 'small', bench: await startBench(t.small, SMALL) });
  // The two sizes take turns within each round (the order flips every round), so both see the same
  // stretch of this VM's weather; each round's big/small ratio compares neighbours in time.
  for (let round = 0; round < ROUNDS; round++)
    for (const phase of PHASES)
      for (const { name, bench } of round % 2 === 0 ? benches : [...benches].reverse()) {
        // The warm-up runs before the first round only: the services keep running between rounds.
        if (round === 0 && WARMUP > 0) await bench.run(phase, WARMUP);
        const run = await bench.run(phase, DURATION);
        runs[name][phase].push(run);
        log(`  round ${round + 1} ${name} ${phase}: ${JSON.stringify(run)}`);
      }
} finally {
  for (const { bench } of benches) await bench.stop();
}

/**
 * The sweep the service would run next, with its own batch policy and pauses, on the big database
 * after the phases' churn: on PGlite its VACUUMs run on the service's event loop, and how long they
 * take at this size is what decides when to leave PGlite (docs/sizing.md). The sweeper's usual run:
 * it ANALYZEs the tables it deleted nothing from only once a day (core/sweep.ts).
 */
async function steadySweep(target: Target) {
  const database = await open(target);
  try {
    const report = await runSweep(database, sweepTasks(loadConfig({})), new Date(), {
      analyzeUnswept: false,
    });
    const out = {
      batches: report.batches,
      deleted: report.deleted,
      longestBatchMs: Math.round(report.maxBatchMs),
      vacuumMs: Object.fromEntries(Object.entries(report.vacuumMs).map(([k, ms]) => [k, Math.round(ms)])),
      analyzed: report.analyzed,
    };
    log(`  the next sweep after the phases: ${JSON.stringify(out)}`);
    return out;
  } finally {
    await raws.get(database)?.end?.();
    await database.close();
  }
}
const sweepAfter = await steadySweep(t.big);

function emptyRuns(): Record<Phase, Run[]> {
  return { signin: [], getUser: [], refresh: [] };
}
const pct = (ratio: number) => `${ratio >= 1 ? '+' : '−'}${Math.abs(Math.round((ratio - 1) * 100))} %`;
/** One phase's medians, and the big/small ratio of each round (the pairs that ran side by side). */
function summarize(phase: Phase) {
  const b = runs.big[phase];
  const s = runs.small[phase];
  const ratios = b.flatMap((run, i) => (s[i] ? [run.rps / s[i].rps] : []));
  const cpu = (r: Run) => r.serviceCpuMs + (r.databaseCpuMs ?? 0);
  return {
    bigRps: median(b.map((r) => r.rps)),
    smallRps: median(s.map((r) => r.rps)),
    rpsRatios: ratios.map((x) => Math.round(x * 1000) / 1000),
    medianRpsRatio: median(ratios),
    bigCpuMs: median(b.map(cpu)),
    smallCpuMs: median(s.map(cpu)),
    bigWalBytes: median(b.map((r) => r.walBytesPerRequest ?? Number.NaN)),
    smallWalBytes: median(s.map((r) => r.walBytesPerRequest ?? Number.NaN)),
  };
}
const summary = { signin: summarize('signin'), getUser: summarize('getUser'), refresh: summarize('refresh') };

const result = {
  date: new Date().toISOString(),
  kind: t.big.kind,
  users: USERS,
  small: SMALL,
  rounds: ROUNDS,
  durationSeconds: DURATION,
  warmupSeconds: WARMUP,
  connections: CONNECTIONS,
  serviceEnv: SERVICE_ENV,
  summary,
  big: { ...big, runs: runs.big, sweepAfter },
  ...(small ? { smallDb: { ...small, runs: runs.small } } : {}),
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
const file = join(root, `bench/results/scale-${t.big.kind}-${USERS}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
const names: Record<Phase, string> = { signin: 'password sign-in', getUser: 'GET /user', refresh: 'refresh' };
console.log(
  `\n${t.big.kind}, ${USERS.toLocaleString('en')} accounts vs ${SMALL.toLocaleString('en')} (${ROUNDS} round(s), medians):`,
);
console.log(
  `| | small | big | big vs small, each round | median | CPU per request, small → big |${t.big.kind === 'postgres' ? ' WAL per request, small → big |' : ''}`,
);
for (const phase of PHASES) {
  const x = summary[phase];
  const wal = t.big.kind === 'postgres' ? ` ${x.smallWalBytes} B → ${x.bigWalBytes} B |` : '';
  console.log(
    `| ${names[phase]} | ${x.smallRps}/s | ${x.bigRps}/s | ${x.rpsRatios.map(pct).join(', ')} | ${pct(x.medianRpsRatio)} | ${x.smallCpuMs.toFixed(2)} → ${x.bigCpuMs.toFixed(2)} ms (${pct(x.bigCpuMs / x.smallCpuMs)}) |${wal}`,
  );
}
console.log(`size: ${mb(total(big.before))} before the sweep, ${mb(total(big.after))} after (VACUUM FULL)`);
console.log(`written to ${file}`);
