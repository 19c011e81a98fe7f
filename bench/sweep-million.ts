/**
 * The retention sweep on a table of a million rows (not a test: minutes, and a whole PostgreSQL
 * database): `node bench/sweep-million.ts [--rows 1000000] [--accounts 10000] [--pg <url>]`
 *
 * 1. A fresh database (`--pg`, default postgres://root@127.0.0.1:5432/sweep_million, dropped and
 *    re-created) with `--accounts` real accounts and their month of traffic (test/support/scale-data.ts:
 *    sessions with refresh-token chains, audit rows…), plus `--rows` never-confirmed sign-ups
 *    (users + their email identity) past RETENTION_UNCONFIRMED_USERS: the users table holds a
 *    million rows the sweep must delete.
 * 2. The service (child process, its own sweep off) is measured with autocannon: refresh of random
 *    sessions and password sign-in, `--duration` s each, `--windows` times before the sweep.
 * 3. The sweep's `unconfirmed_users` task (core/sweep.ts, default batch policy) runs from this
 *    process, as a second instance would, while the same two loads run again, window after window,
 *    until it ends; then `--windows` more of each after it (autovacuum on the swept table is
 *    part of "after").
 * Two kinds of load: by default as many requests as 8 connections get answered (saturation: the
 * sweep's CPU comes out of the service's throughput); with `--refresh-rate` and `--signin-rate`
 * (requests/s, below saturation) a fixed load whose latency answers "is any hot query slower?".
 * Printed: the sweep's time, batches and longest batch, each window's figures, and the median (and
 * range) of the windows before, during and after. Results: bench/results/sweep-million.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../apps/auth/src/config.ts';
import { DEFAULT_PAUSE_RATIO, runSweep, type SweepReport, sweepTasks } from '../apps/auth/src/core/sweep.ts';
import { hashPassword } from '../apps/auth/src/crypto/passwords.ts';
import { openDatabase } from '../apps/auth/src/db/client.ts';
import { migrate } from '../apps/auth/src/db/migrate.ts';
import { MONTH_OF_HISTORY, scaleChunkSql } from '../apps/auth/test/support/scale-data.ts';
import { randomSessionTokens } from './support/random-refresh.ts';
import { median } from './support/stats.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    accounts: { type: 'string', default: '10000' },
    pg: { type: 'string', default: 'postgres://root@127.0.0.1:5432/sweep_million' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    // Windows of each load before the sweep and after it (one window is too noisy to compare with).
    windows: { type: 'string', default: '3' },
    // Fixed loads (requests/s, all connections together); 0 = as fast as answered.
    'refresh-rate': { type: 'string', default: '0' },
    'signin-rate': { type: 'string', default: '0' },
    // The sweep's pause after each batch, as a multiple of the batch's time (core/sweep.ts's default).
    'pause-ratio': { type: 'string', default: String(DEFAULT_PAUSE_RATIO) },
    // Stop the sweep after this many seconds (0: let it finish): a loaded machine can make a full
    // pass longer than the time there is to measure it; the rate is then reported.
    'max-seconds': { type: 'string', default: '0' },
  },
});
const root = new URL('..', import.meta.url).pathname;
const ROWS = Number(args.rows);
const ACCOUNTS = Number(args.accounts);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const WINDOWS = Math.max(1, Number(args.windows));
const REFRESH_RATE = Number(args['refresh-rate']);
const SIGNIN_RATE = Number(args['signin-rate']);
const ANON = 'sb_publishable_namaa_development_key';
const PASSWORD = 'scale-bench-password';
const log = (line: string) => process.stderr.write(`${line}\n`);

async function freshDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = u.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`database name ${name}: letters, digits and _ only`);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.href });
  await c.connect();
  try {
    await c.query(`drop database if exists ${name} with (force)`);
    await c.query(`create database ${name}`);
  } finally {
    await c.end();
  }
}

async function load(url: string): Promise<number> {
  const database = await openDatabase({ databaseUrl: url, dataDir: '' });
  await migrate(database);
  await database.close();
  const c = new pg.Client({ connectionString: url, options: '-c search_path=auth' });
  await c.connect();
  const started = Date.now();
  try {
    await c.query('set statement_timeout = 0');
    const hash = await hashPassword(PASSWORD);
    for (let from = 0; from < ACCOUNTS; from += 10_000) {
      const to = Math.min(ACCOUNTS, from + 10_000);
      for (const statement of scaleChunkSql(from, to, hash, MONTH_OF_HISTORY)) await c.query(statement);
      log(`  ${to.toLocaleString('en')} accounts with their month of traffic`);
    }
    const CHUNK = 100_000;
    for (let from = 0; from < ROWS; from += CHUNK) {
      const to = Math.min(ROWS, from + CHUNK);
      // Signed up 8 to 38 days ago, never confirmed: all past the default 7-day retention.
      await c.query(
        `with u as (
           insert into users (id, aud, role, email, encrypted_password, confirmation_sent_at, created_at, updated_at,
             raw_app_meta_data, raw_user_meta_data)
           select gen_random_uuid(), 'authenticated', 'authenticated', 'pending' || i || '@sweep.test', $1,
             t, t, t, '{"provider":"email","providers":["email"]}', '{}'
           from generate_series($2::int, $3::int - 1) i,
             lateral (select now() - interval '8 days' - (i % 2592000) * interval '1 second' as t) x
           returning id, email, created_at)
         insert into identities (id, provider_id, user_id, provider, email, identity_data, created_at, updated_at)
         select gen_random_uuid(), u.id::text, u.id, 'email', u.email,
           jsonb_build_object('sub', u.id, 'email', u.email), u.created_at, u.created_at from u`,
        [hash, from, to],
      );
      log(`  ${to.toLocaleString('en')} / ${ROWS.toLocaleString('en')} never-confirmed sign-ups`);
    }
    await c.query('analyze');
  } finally {
    await c.end();
  }
  return (Date.now() - started) / 1000;
}

function startService(url: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, 'apps/auth/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SITE_DIR: '/nonexistent',
      SWEEP_INTERVAL: '0',
      RATE_LIMIT_SIGNIN_PER_IP: '1000000',
      RATE_LIMIT_SIGNIN_PER_ACCOUNT: '1000000',
      DATABASE_URL: url,
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

type Run = { rps: number; p50: number; p99: number; non2xx: number };
const cannon = (opts: autocannon.Options) =>
  new Promise<Run>((resolve, reject) =>
    autocannon(opts, (err, r) =>
      err
        ? reject(err)
        : resolve({
            rps: Math.round(r.requests.average),
            p50: r.latency.p50,
            p99: r.latency.p99,
            non2xx: r.non2xx,
          }),
    ),
  );
const pick = (n: number) => Math.floor(Math.random() * n);

/** Median and range of each figure over a set of windows. */
function summary(runs: Run[]) {
  const of = (k: keyof Run) => {
    const xs = runs.map((r) => r[k]);
    return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
  };
  return { windows: runs.length, rps: of('rps'), p50: of('p50'), p99: of('p99'), non2xx: of('non2xx') };
}
const line = (label: string, s: ReturnType<typeof summary>) =>
  `${label.padEnd(18)} ${String(s.rps.median).padStart(6)}/s (${s.rps.min}–${s.rps.max})  p50 ${s.p50.median} ms (${s.p50.min}–${s.p50.max})  p99 ${s.p99.median} ms (${s.p99.min}–${s.p99.max})  non-2xx ${s.non2xx.max}`;

async function main() {
  log(`fresh database ${args.pg}`);
  await freshDatabase(args.pg);
  const loadSeconds = await load(args.pg);
  log(`loaded in ${loadSeconds.toFixed(0)} s`);
  const { url, child } = await startService(args.pg);
  const api = `${url}/auth/v1`;
  const headers = { apikey: ANON, 'content-type': 'application/json' };
  const sessionsTotal = ACCOUNTS * MONTH_OF_HISTORY.sessionsPerUser;
  const sessions = randomSessionTokens(sessionsTotal);
  const refresh = (): Promise<Run> =>
    cannon({
      url: `${api}/token?grant_type=refresh_token`,
      connections: CONNECTIONS,
      duration: DURATION,
      ...(REFRESH_RATE > 0 ? { overallRate: REFRESH_RATE } : {}),
      method: 'POST',
      headers,
      requests: sessions.requests(),
    });
  const signin = (): Promise<Run> =>
    cannon({
      url: `${api}/token?grant_type=password`,
      connections: CONNECTIONS,
      duration: DURATION,
      ...(SIGNIN_RATE > 0 ? { overallRate: SIGNIN_RATE } : {}),
      method: 'POST',
      headers,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ email: `user${pick(ACCOUNTS)}@scale.test`, password: PASSWORD }),
          }),
        },
      ],
    });
  try {
    const windows = async (label: string) => {
      const runs: { refresh: Run[]; signin: Run[] } = { refresh: [], signin: [] };
      for (let i = 0; i < WINDOWS; i++) {
        runs.refresh.push(await refresh());
        log(`  ${label}, refresh: ${JSON.stringify(runs.refresh.at(-1))}`);
        runs.signin.push(await signin());
        log(`  ${label}, sign-in: ${JSON.stringify(runs.signin.at(-1))}`);
      }
      return runs;
    };
    log(`before the sweep: ${WINDOWS} windows of refresh, then sign-in`);
    const before = await windows('before');

    const database = await openDatabase({ databaseUrl: args.pg, dataDir: '' });
    const config = loadConfig({ DATABASE_URL: args.pg });
    const tasks = sweepTasks(config).filter((t) => t.name === 'unconfirmed_users');
    let report: SweepReport | undefined;
    let done = false;
    const stop = new AbortController();
    const maxSeconds = Number(args['max-seconds']);
    const timer = maxSeconds > 0 ? setTimeout(() => stop.abort(), maxSeconds * 1000) : undefined;
    const sweep = runSweep(database, tasks, new Date(), {
      signal: stop.signal,
      pauseRatio: Number(args['pause-ratio']),
    }).then((r) => {
      clearTimeout(timer);
      report = r;
      done = true;
      return r;
    });
    const during: { refresh: Run[]; signin: Run[] } = { refresh: [], signin: [] };
    while (!done) {
      during.refresh.push(await refresh());
      log(`  during, refresh: ${JSON.stringify(during.refresh.at(-1))}`);
      if (done) break;
      during.signin.push(await signin());
      log(`  during, sign-in: ${JSON.stringify(during.signin.at(-1))}`);
    }
    await sweep;
    await database.close();
    log(`after the sweep: ${WINDOWS} windows of refresh, then sign-in`);
    const after = await windows('after');
    const left = new pg.Client({ connectionString: args.pg, options: '-c search_path=auth' });
    await left.connect();
    const remaining = Number(
      (await left.query(`select count(*) as n from users where email like '%@sweep.test'`)).rows[0].n,
    );
    await left.end();
    const result = {
      rows: ROWS,
      accounts: ACCOUNTS,
      loadSeconds: Math.round(loadSeconds),
      sweep: {
        seconds: Math.round((report?.durationMs ?? 0) / 100) / 10,
        deleted: report?.deleted.unconfirmed_users ?? 0,
        remaining,
        deletedPerSecond: Math.round(
          (report?.deleted.unconfirmed_users ?? 0) / Math.max(0.001, (report?.durationMs ?? 0) / 1000),
        ),
        stoppedAtMaxSeconds: stop.signal.aborted,
        batches: report?.batches,
        longestBatchMs: Math.round(report?.maxBatchMs ?? 0),
      },
      pauseRatio: Number(args['pause-ratio']),
      load: {
        refresh: REFRESH_RATE > 0 ? `${REFRESH_RATE}/s` : 'saturating',
        signin: SIGNIN_RATE > 0 ? `${SIGNIN_RATE}/s` : 'saturating',
      },
      summary: {
        refresh: {
          before: summary(before.refresh),
          during: summary(during.refresh),
          after: summary(after.refresh),
        },
        signin: {
          before: summary(before.signin),
          during: summary(during.signin),
          after: summary(after.signin),
        },
      },
      before,
      during,
      after,
      connections: CONNECTIONS,
      durationPerWindow: DURATION,
      at: new Date().toISOString(),
    };
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/sweep-million.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
    for (const kind of ['refresh', 'signin'] as const)
      for (const when of ['before', 'during', 'after'] as const)
        console.log(line(`${kind} ${when}`, result.summary[kind][when]));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

await main();
