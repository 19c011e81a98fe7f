// The periodic sweep (core/sweep.ts) against the real service: for each kind of row, what goes and
// what stays, with sessions and tokens made through the API; the batch size following the measured
// batch time on a big table; and, on PGlite, that VACUUM gives the space back. PGlite, and
// PostgreSQL when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyChildRefreshToken, newRefreshToken } from '../../src/core/refresh-token.ts';
import {
  ANALYZE_EVERY_MS,
  type BatchPolicy,
  type BatchRecord,
  DEFAULT_PAUSE_RATIO,
  nextBatchSize,
  runSweep,
  type SweepTask,
  startSweeper,
  sweepTasks,
} from '../../src/core/sweep.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import { queryRows } from '../../src/db/client.ts';
import { findAndRotateRefreshToken } from '../../src/db/sessions.repo.ts';
import { createLogger } from '../../src/logger.ts';
import { signUpConfirmed } from '../support/email-links.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  // No background sweep: each test runs it when its rows are in place. Reuse interval 0: a replay of
  // anything but the active token's parent is a reuse at once.
  t = await startTestServer({ SWEEP_INTERVAL: '0', REFRESH_TOKEN_REUSE_INTERVAL: '0' });
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.server.deps.db;
const count = async (query: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number | string }>(db(), query))[0]?.n);
const sweep = () => t.server.sweeper.runOnce();

async function signIn(email: string) {
  const r = await t.api('/token?grant_type=password', {
    method: 'POST',
    body: JSON.stringify({ email, password: 'correct horse' }),
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { refresh_token: string; access_token: string; user: { id: string } };
  return body;
}

async function refresh(token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await t.api('/token?grant_type=refresh_token', {
    method: 'POST',
    body: JSON.stringify({ refresh_token: token }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

async function sessionOf(accessToken: string): Promise<string> {
  return JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString()).session_id;
}

/** Moves every time of a session and its refresh tokens `hours` into the past. */
async function age(sessionId: string, hours: number) {
  const back = sql`make_interval(hours => ${hours})`;
  await db().execute(sql`update refresh_tokens set created_at = created_at - ${back},
    updated_at = updated_at - ${back}, revoked_at = revoked_at - ${back} where session_id = ${sessionId}::uuid`);
  await db().execute(sql`update sessions set created_at = created_at - ${back},
    refreshed_at = refreshed_at - ${back}, updated_at = updated_at - ${back},
    refresh_token_previous_at = refresh_token_previous_at - ${back},
    refreshed_on = ((refreshed_at - ${back}) at time zone 'UTC')::date where id = ${sessionId}::uuid`);
}

describe('refresh tokens', () => {
  it('leave no rows: the session row holds the active one, and a month on its parent still answers it and an older one is a reuse', async () => {
    const email = uniqueEmail('sweep-rt');
    await signUpConfirmed(t, email);
    const first = await signIn(email);
    const session = await sessionOf(first.access_token);
    const chain = [first.refresh_token];
    for (let i = 0; i < 3; i++) {
      const r = await refresh(chain.at(-1) as string);
      expect(r.status).toBe(200);
      chain.push(r.body.refresh_token as string);
    }
    const tokenRows = () =>
      count(sql`select count(*) as n from refresh_tokens where session_id = ${session}::uuid`);
    expect(await tokenRows()).toBe(0);
    // A month-old chain: a0, a1, a2 rotated 30 days ago, a3 active.
    await age(session, 30 * 24);
    await sweep();
    // a2 is the parent of the active a3: presenting it answers a3 (a client that lost the answer of
    // its last refresh), whatever its age.
    const parent = await refresh(chain[2] as string);
    expect(parent.status).toBe(200);
    expect(parent.body.refresh_token).toBe(chain[3]);
    // A token that names the session but is not of its chain ends nothing.
    const forged = `${(chain[3] as string).slice(0, 23)}${'A'.repeat(43)}`;
    expect(await refresh(forged)).toMatchObject({
      status: 400,
      body: { error_code: 'refresh_token_not_found' },
    });
    expect(await count(sql`select count(*) as n from sessions where id = ${session}::uuid`)).toBe(1);

    // Two more rotations now: a5 active. Replaying a3, two steps behind it and rotated a moment ago
    // (the reuse interval is 0 here): a reuse, so the session (the family) ends.
    for (let i = 0; i < 2; i++) {
      const r = await refresh(chain.at(-1) as string);
      expect(r.status).toBe(200);
      chain.push(r.body.refresh_token as string);
    }
    expect(await refresh(chain[3] as string)).toMatchObject({
      status: 400,
      body: { error_code: 'refresh_token_already_used' },
    });
    expect(await count(sql`select count(*) as n from sessions where id = ${session}::uuid`)).toBe(0);
  });

  it('issued before the session row held them (refresh_tokens rows) still refresh, move their session to the current format, and go after the retention except the parent', async () => {
    const email = uniqueEmail('sweep-legacy');
    await signUpConfirmed(t, email);
    const session = await sessionOf((await signIn(email)).access_token);
    const { user } = await signIn(email);
    // The session as an earlier release left it: a chain of rows l0 → l1 → l2 (active), l0 and l1
    // rotated 30 days ago, nothing on the session row.
    const secret = t.server.deps.secrets.refreshChain;
    const l = ['legacy-root-token-0123456789abcdefghijklmnop'];
    for (let i = 0; i < 2; i++) l.push(legacyChildRefreshToken(secret, l.at(-1) as string));
    await db().execute(sql`update sessions set refresh_token_hash = null, refreshed_on = null,
      refreshed_at = now() - interval '30 days' where id = ${session}::uuid`);
    for (const [i, token] of l.entries()) {
      const old = i < 2;
      await db().execute(sql`insert into refresh_tokens (id, token_hash, parent_hash, session_id, user_id,
          revoked, revoked_at, created_at, updated_at)
        values (${randomUUID()}::uuid, ${sha256(token)}, ${i ? sha256(l[i - 1] as string) : null}, ${session}::uuid,
          ${user.id}::uuid, ${old}, ${old ? sql`now() - interval '30 days'` : null},
          now() - interval '31 days', now() - interval '30 days')`);
    }
    const rows = () =>
      count(sql`select count(*) as n from refresh_tokens where session_id = ${session}::uuid`);
    await sweep();
    // l0 went; l1 stays as the parent of the active l2.
    expect(await rows()).toBe(2);

    const moved = await refresh(l[2] as string);
    expect(moved.status).toBe(200);
    const next = moved.body.refresh_token as string;
    expect(next).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const [row] = await queryRows<{ refresh_token_hash: string | null }>(
      db(),
      sql`select refresh_token_hash from sessions where id = ${session}::uuid`,
    );
    expect(row?.refresh_token_hash).toBe(sha256(next));
    // l2, now the parent of the active token, answers it; the new token refreshes.
    const again = await refresh(l[2] as string);
    expect(again).toMatchObject({ status: 200, body: { refresh_token: next } });
    const newer = await refresh(next);
    expect(newer.status).toBe(200);
    // l1, rotated a month ago and three steps back: a reuse.
    expect(await refresh(l[1] as string)).toMatchObject({
      status: 400,
      body: { error_code: 'refresh_token_already_used' },
    });
    expect(await count(sql`select count(*) as n from sessions where id = ${session}::uuid`)).toBe(0);
  });
});

describe('ended sessions', () => {
  it('go a retention after SESSIONS_TIMEBOX, SESSIONS_INACTIVITY_TIMEOUT or not_after ends them; live ones stay', async () => {
    const email = uniqueEmail('sweep-s');
    await signUpConfirmed(t, email);
    const ids: Record<string, string> = {};
    const access: Record<string, string> = {};
    for (const name of ['boxed', 'idle', 'notAfter', 'live', 'recentlyIdle']) {
      const s = await signIn(email);
      ids[name] = await sessionOf(s.access_token);
      access[name] = s.access_token;
    }
    const exists = async (name: string) =>
      (await count(sql`select count(*) as n from sessions where id = ${ids[name]}::uuid`)) === 1;
    // Began 40 days ago but refreshed just now: only a timebox ends it.
    await db().execute(
      sql`update sessions set created_at = now() - interval '40 days' where id = ${ids.boxed}::uuid`,
    );
    await age(ids.idle as string, 10 * 24);
    await age(ids.recentlyIdle as string, 36); // idle past the 1-day limit, but within the retention
    await db().execute(
      sql`update sessions set not_after = now() - interval '2 days' where id = ${ids.notAfter}::uuid`,
    );

    // GoTrue's defaults (no timebox, no inactivity timeout): sessions never end, so none goes.
    await sweep();
    for (const name of ['boxed', 'idle', 'live', 'recentlyIdle']) expect(await exists(name)).toBe(true);
    expect(await exists('notAfter')).toBe(false);

    try {
      t.config.SESSIONS_TIMEBOX = 30 * 86400;
      t.config.SESSIONS_INACTIVITY_TIMEOUT = 86400;
      const report = await sweep();
      expect(report.deleted).toMatchObject({ timeboxed_sessions: 1, inactive_sessions: 1 });
      expect(await exists('boxed')).toBe(false);
      expect(await exists('idle')).toBe(false);
      expect(await exists('recentlyIdle')).toBe(true);
      expect(await exists('live')).toBe(true);
      // Their refresh tokens went with them; the live session still answers.
      expect(
        await count(sql`select count(*) as n from refresh_tokens
          where session_id in (${ids.boxed}::uuid, ${ids.idle}::uuid)`),
      ).toBe(0);
      const user = await t.api('/user', { headers: { authorization: `Bearer ${access.live}` } });
      expect(user.status).toBe(200);
    } finally {
      t.config.SESSIONS_TIMEBOX = 0;
      t.config.SESSIONS_INACTIVITY_TIMEOUT = 0;
    }
  });
});

describe('expired links, flow states, challenges; old audit rows, counters and mail', () => {
  it('go past their expiry plus the retention; the rest stays', async () => {
    const email = uniqueEmail('sweep-x');
    await signUpConfirmed(t, email);
    const { user } = await signIn(email);
    const uid = user.id;
    const tag = randomUUID().slice(0, 8);
    // A real link first: a recovery mail (its one-time token), then rows of each kind at three ages.
    expect((await t.api('/recover', { method: 'POST', body: JSON.stringify({ email }) })).status).toBe(200);
    await t.inbox.waitFor(email);
    await db().execute(sql`update one_time_tokens set expires_at = now() - interval '2 days'
      where user_id = ${uid}::uuid`);
    const ages = {
      old: "now() - interval '2 days'",
      recent: "now() - interval '1 hour'",
      live: "now() + interval '1 hour'",
    };
    for (const [name, at] of Object.entries(ages)) {
      const when = sql.raw(at);
      await db().execute(sql`insert into one_time_tokens (id, user_id, token_type, token_hash, otp_hash, relates_to, expires_at)
        values (${randomUUID()}::uuid, ${uid}::uuid, ${`t-${name}`}, ${`${tag}-${name}`}, 'x', ${email}, ${when})`);
      await db().execute(sql`insert into flow_state (id, user_id, auth_code_hash, code_challenge, code_challenge_method, authentication_method, expires_at)
        values (${randomUUID()}::uuid, ${uid}::uuid, ${`${tag}-${name}`}, 'c', 's256', 'recovery', ${when})`);
      await db().execute(sql`insert into oauth_states (id, state_hash, provider, redirect_to, provider_verifier, expires_at)
        values (${randomUUID()}::uuid, ${`${tag}-${name}`}, 'google', 'https://x.test/', 'v', ${when})`);
    }
    const factor = randomUUID();
    await db().execute(sql`insert into mfa_factors (id, user_id, friendly_name, factor_type, status)
      values (${factor}::uuid, ${uid}::uuid, ${tag}, 'totp', 'verified')`);
    for (const [name, at] of Object.entries(ages))
      await db().execute(sql`insert into mfa_challenges (id, factor_id, ip_address, expires_at)
        values (${randomUUID()}::uuid, ${factor}::uuid, ${name}, ${sql.raw(at)})`);
    for (const days of [91, 89])
      await db().execute(sql`insert into audit_log_entries (id, action, actor_id, created_at)
        values (${randomUUID()}::uuid, ${`sweep_${days}`}, ${uid}::uuid, now() - make_interval(days => ${days}))`);
    for (const days of [8, 6])
      await db().execute(sql`insert into mail_outbox (id, kind, to_address, subject, html, text, status, created_at)
        values (${randomUUID()}::uuid, ${`sweep-${tag}`}, ${`${days}@${tag}.test`}, 's', '', '', 'sent', now() - make_interval(days => ${days}))`);
    await db().execute(sql`insert into mail_outbox (id, kind, to_address, subject, html, text, status, created_at)
      values (${randomUUID()}::uuid, ${`sweep-${tag}`}, ${`pending@${tag}.test`}, 's', '', '', 'pending', now() - interval '30 days')`);

    const todaysAudit = await count(
      sql`select count(*) as n from audit_log_entries where actor_id = ${uid}::uuid and action not like 'sweep_%'`,
    );
    await sweep();

    const left = async (q: ReturnType<typeof sql>) =>
      (await queryRows<{ v: string }>(db(), q)).map((r) => r.v).sort();
    expect(await left(sql`select token_type as v from one_time_tokens where user_id = ${uid}::uuid`)).toEqual(
      ['t-live', 't-recent'],
    );
    expect(await left(sql`select auth_code_hash as v from flow_state where user_id = ${uid}::uuid`)).toEqual([
      `${tag}-live`,
      `${tag}-recent`,
    ]);
    expect(
      await left(sql`select ip_address as v from mfa_challenges where factor_id = ${factor}::uuid`),
    ).toEqual(['live', 'recent']);
    expect(
      await left(sql`select state_hash as v from oauth_states where state_hash like ${`${tag}-%`}`),
    ).toEqual([`${tag}-live`, `${tag}-recent`]);
    expect(await left(sql`select action as v from audit_log_entries where action like 'sweep_%'`)).toEqual([
      'sweep_89',
    ]);
    // The user's own audit rows (sign-up, sign-in, recovery: today) all stay.
    expect(
      await count(
        sql`select count(*) as n from audit_log_entries where actor_id = ${uid}::uuid and action not like 'sweep_%'`,
      ),
    ).toBe(todaysAudit);
    expect(await left(sql`select to_address as v from mail_outbox where kind = ${`sweep-${tag}`}`)).toEqual([
      `6@${tag}.test`,
      `pending@${tag}.test`,
    ]);
  });
});

describe('batches', () => {
  const policy: BatchPolicy = { targetMs: 20, initial: 200, min: 10, max: 10_000 };

  it('grow while fast and shrink in proportion when slow', () => {
    expect(nextBatchSize(200, 5, 200, policy)).toBe(400);
    expect(nextBatchSize(200, 15, 200, policy)).toBe(200);
    expect(nextBatchSize(200, 40, 200, policy)).toBe(100);
    expect(nextBatchSize(200, 400, 200, policy)).toBe(10);
    expect(nextBatchSize(10_000, 1, 10_000, policy)).toBe(10_000);
  });

  it('follow the measured time of each batch on a big table, until everything due is gone', async () => {
    const rows = 10_000;
    const action = `bulk_${randomUUID().slice(0, 8)}`;
    await db().execute(sql`insert into audit_log_entries (id, action, created_at, payload)
      select gen_random_uuid(), ${action}, now() - interval '100 days' - make_interval(secs => i), '{"provider":"email"}'::jsonb
      from generate_series(1, ${rows}) as i`);
    const task = sweepTasks(t.config).find((x) => x.name === 'audit_log') as SweepTask;
    const batches: BatchRecord[] = [];
    const report = await runSweep(t.server.deps.database, [task], new Date(), {
      policy,
      pauseMs: 1,
      onBatch: (b) => batches.push(b),
    });
    console.log(
      `audit sweep of ${rows} rows on ${t.server.deps.database.kind}: ${batches.length} batches, sizes ${batches
        .map((b) => `${b.size}:${b.ms.toFixed(0)}ms`)
        .join(' ')}`,
    );
    expect(report.deleted.audit_log).toBeGreaterThanOrEqual(rows);
    expect(await count(sql`select count(*) as n from audit_log_entries where action = ${action}`)).toBe(0);
    // Each batch's size is what the policy made of the one before: timing is the machine's, the
    // sizing logic is what is asserted.
    for (let i = 1; i < batches.length; i++) {
      const b = batches[i - 1] as BatchRecord;
      expect(batches[i]?.size).toBe(nextBatchSize(b.size, b.ms, b.scanned, policy));
    }
    expect(batches.length).toBeGreaterThan(2);
  }, 180_000);

  it('shrink to what fits in the target when each row is slow', async () => {
    // A statement costing 0.5 ms per row: 200 rows take 100 ms, the policy must come down to ~40.
    const slow = slowTask(2_000, (n) => n * 0.5);
    const sizes: number[] = [];
    await runSweep({ db: db(), kind: 'postgres' }, [slow], new Date(), {
      policy,
      pauseMs: 0,
      onBatch: (b) => sizes.push(b.size),
    });
    expect(sizes[0]).toBe(200);
    expect(sizes[1]).toBeLessThanOrEqual(40);
    expect(Math.max(...sizes.slice(1))).toBeLessThanOrEqual(80);
  });
});

/** A task over `rows` rows (no table) whose batch of n rows takes `ms(n)` milliseconds. */
function slowTask(rows: number, ms: (n: number) => number): SweepTask {
  let left = rows;
  return {
    name: 'slow',
    table: 'none',
    cutoff: () => new Date(),
    statement: async (_db, limit) => {
      const n = Math.min(limit, left);
      left -= n;
      await sleep(ms(n));
      return { deleted: n, scanned: n };
    },
  };
}

describe('the pause between batches', () => {
  it('is the batch time times pauseRatio (3 by default: at most a quarter of the time deleting)', async () => {
    expect(DEFAULT_PAUSE_RATIO).toBe(3);
    for (const pauseRatio of [undefined, 1]) {
      const slow = slowTask(120, () => 30);
      const batches: BatchRecord[] = [];
      const fixed: BatchPolicy = { targetMs: 1_000_000, initial: 50, min: 50, max: 50 };
      const report = await runSweep({ db: db(), kind: 'postgres' }, [slow], new Date(), {
        policy: fixed,
        pauseMs: 0,
        ...(pauseRatio ? { pauseRatio } : {}),
        onBatch: (b) => batches.push(b),
      });
      // Three batches (50, 50, 20 rows); a pause follows each full one.
      expect(batches.map((b) => b.size)).toEqual([50, 50, 50]);
      const working = batches.reduce((ms, b) => ms + b.ms, 0);
      const paused = (batches[0]?.ms ?? 0) + (batches[1]?.ms ?? 0);
      const ratio = pauseRatio ?? DEFAULT_PAUSE_RATIO;
      // A timer never fires more than a millisecond early; it may fire late on a busy machine.
      expect(report.durationMs).toBeGreaterThanOrEqual(working + ratio * paused - 4);
    }
  });
});

describe('keyset batches', () => {
  it('each batch starts at the key where the last one stopped, not at the head of the index', async () => {
    const rows = 300;
    const action = `keyset_${randomUUID().slice(0, 8)}`;
    await db().execute(sql`insert into audit_log_entries (id, action, created_at, payload)
      select gen_random_uuid(), ${action}, now() - interval '100 days' - make_interval(secs => i), '{}'::jsonb
      from generate_series(1, ${rows}) as i`);
    const real = sweepTasks(t.config).find((x) => x.name === 'audit_log') as SweepTask;
    const calls: Array<{ from?: Date; last?: Date }> = [];
    const recorded: SweepTask = {
      ...real,
      statement: async (d, limit, before, from) => {
        const r = await real.statement(d, limit, before, from);
        calls.push({ from, last: r.last });
        return r;
      },
    };
    const policy: BatchPolicy = { targetMs: 1_000_000, initial: 50, min: 50, max: 50 };
    const report = await runSweep(t.server.deps.database, [recorded], new Date(), { policy, pauseMs: 0 });
    expect(report.deleted.audit_log).toBeGreaterThanOrEqual(rows);
    expect(calls.length).toBeGreaterThan(rows / 50);
    expect(calls[0]?.from).toBeUndefined();
    for (let i = 1; i < calls.length; i++) {
      // The cursor is the previous batch's last key, and keys only move forward.
      const prev = calls[i - 1]?.last ?? calls[i - 1]?.from;
      expect(calls[i]?.from?.getTime()).toBe(prev?.getTime());
      if (calls[i]?.last) expect(calls[i]?.last?.getTime()).toBeGreaterThanOrEqual(prev?.getTime() ?? 0);
    }
    // A statement given a cursor leaves what lies before it (a row skipped while locked waits for the next run).
    const older = `keyset_old_${randomUUID().slice(0, 8)}`;
    await db().execute(sql`insert into audit_log_entries (id, action, created_at, payload) values
      (gen_random_uuid(), ${older}, now() - interval '200 days', '{}'::jsonb),
      (gen_random_uuid(), ${older}, now() - interval '100 days', '{}'::jsonb)`);
    const cut = new Date(Date.now() - 150 * 86400_000);
    const batch = await real.statement(db(), 10, new Date(Date.now() - 90 * 86400_000), cut);
    expect(batch.deleted).toBeGreaterThanOrEqual(1);
    expect(batch.last?.getTime()).toBeGreaterThanOrEqual(cut.getTime());
    expect(await count(sql`select count(*) as n from audit_log_entries where action = ${older}`)).toBe(1);
  }, 120_000);
});

describe.skipIf(!!process.env.DATABASE_URL)('PGlite: VACUUM after the sweep', () => {
  const totalSize = async (table: string) =>
    count(sql`select pg_total_relation_size(${table}::regclass) as n`);

  async function refreshLoad(
    sessions: Array<{ id: string; token: string }>,
    rounds: number,
    sweepWith: 'pglite' | 'none',
  ) {
    const sizes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const s of sessions) {
        const child = newRefreshToken(s.id);
        const out = await findAndRotateRefreshToken(db(), {
          sessionId: s.id,
          tokenHash: sha256(s.token),
          childHash: sha256(child),
          now: new Date(),
        });
        expect(out?.rotated).toBe(true);
        s.token = child;
      }
      const tasks = sweepTasks(t.config).filter((x) => x.name === 'revoked_refresh_tokens');
      // The control run skips the VACUUM (as if on PostgreSQL, where autovacuum does it).
      await runSweep(
        { db: db(), kind: sweepWith === 'pglite' ? 'pglite' : 'postgres' },
        tasks,
        new Date(Date.now() + 1000),
      );
      sizes.push(await totalSize('sessions'));
    }
    return sizes;
  }

  it('keeps the sessions flat under a steady refresh load: each refresh is one HOT update of its session row', async () => {
    const email = uniqueEmail('sweep-v');
    await signUpConfirmed(t, email);
    const sessions: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < 20; i++) {
      const s = await signIn(email);
      sessions.push({ id: await sessionOf(s.access_token), token: s.refresh_token });
    }
    await runSweep(t.server.deps.database, sweepTasks(t.config), new Date());
    const withVacuum = await refreshLoad(sessions, 12, 'pglite');
    const withoutVacuum = await refreshLoad(sessions, 12, 'none');
    console.log(
      `sessions bytes per round, with VACUUM: ${withVacuum.join(' ')}; without: ${withoutVacuum.join(' ')}`,
    );
    // A refresh changes no indexed column (refreshed_on only once a day), so the row's old versions
    // are pruned inside its page: flat even without a VACUUM. Rows in refresh_tokens (one per
    // refresh, before the session row held the token) grew without one.
    const warm = withVacuum[3] as number;
    expect(Math.max(...withVacuum.slice(4))).toBeLessThanOrEqual(warm * 1.1);
    expect(Math.max(...withoutVacuum)).toBeLessThanOrEqual(warm * 1.1);
    expect(await count(sql`select count(*) as n from refresh_tokens`)).toBe(0);
  }, 180_000);

  it('reclaims the rows it deleted: a table swept and refilled stays flat with the VACUUM, grows without', async () => {
    const email = uniqueEmail('sweep-d');
    await signUpConfirmed(t, email);
    const { user } = await signIn(email);
    const churn = async (sweepWith: 'pglite' | 'none') => {
      const sizes: number[] = [];
      const tasks = sweepTasks(t.config).filter((x) => x.name === 'audit_log');
      for (let round = 0; round < 10; round++) {
        // 300 audit rows past the retention, then the sweep deletes them.
        await db().execute(sql`insert into audit_log_entries (id, action, actor_id, payload, created_at)
          select gen_random_uuid(), 'churn', ${user.id}::uuid, '{}'::jsonb, now() - interval '400 days'
          from generate_series(1, 300)`);
        await runSweep({ db: db(), kind: sweepWith === 'pglite' ? 'pglite' : 'postgres' }, tasks, new Date());
        sizes.push(await totalSize('audit_log_entries'));
      }
      return sizes;
    };
    const withVacuum = await churn('pglite');
    const withoutVacuum = await churn('none');
    console.log(
      `audit_log_entries bytes per round, with VACUUM: ${withVacuum.join(' ')}; without: ${withoutVacuum.join(' ')}`,
    );
    const warm = withVacuum[3] as number;
    expect(Math.max(...withVacuum.slice(4))).toBeLessThanOrEqual(warm * 1.1);
    expect(withoutVacuum.at(-1) as number).toBeGreaterThan(withVacuum.at(-1) as number);
  }, 180_000);

  // PGlite's own statistics: how often each table was vacuumed and analyzed.
  const statCounts = async (table: string) => {
    const [row] = await queryRows<{ v: number | string; a: number | string }>(
      db(),
      sql`select vacuum_count as v, analyze_count as a from pg_stat_user_tables where relname = ${table}`,
    );
    return { vacuums: Number(row?.v), analyzes: Number(row?.a) };
  };

  it('ANALYZEs a churned table it deleted nothing from only when asked, and a table it swept always', async () => {
    const email = uniqueEmail('sweep-a');
    await signUpConfirmed(t, email);
    const { user } = await signIn(email);
    const auditTask = sweepTasks(t.config).filter((x) => x.name === 'audit_log');
    const pglite = { db: db(), kind: 'pglite' as const };
    await db().execute(sql`insert into audit_log_entries (id, action, actor_id, payload, created_at)
      select gen_random_uuid(), 'analyze', ${user.id}::uuid, '{}'::jsonb, now() - interval '400 days'
      from generate_series(1, 20)`);
    const sessions0 = await statCounts('sessions');
    const audit0 = await statCounts('audit_log_entries');

    const quiet = await runSweep(pglite, auditTask, new Date(), { analyzeUnswept: false });
    expect(quiet.deleted.audit_log).toBe(20);
    const sessions1 = await statCounts('sessions');
    // Vacuumed, not analyzed: at a million accounts that ANALYZE alone holds the event loop ~0.46 s.
    expect(sessions1).toEqual({ vacuums: sessions0.vacuums + 1, analyzes: sessions0.analyzes });
    // The swept table's rows changed: its statistics are refreshed regardless.
    expect((await statCounts('audit_log_entries')).analyzes).toBe(audit0.analyzes + 1);
    expect(quiet.analyzed).toEqual(['audit_log_entries']);

    const full = await runSweep(pglite, auditTask, new Date());
    expect(await statCounts('sessions')).toEqual({
      vacuums: sessions1.vacuums + 1,
      analyzes: sessions1.analyzes + 1,
    });
    expect(full.analyzed).toEqual(expect.arrayContaining(['sessions', 'rate_limit_counters']));
  });

  it('the sweeper ANALYZEs the churned tables on its first run and then once a day', async () => {
    let now = Date.now();
    const sweeper = startSweeper({
      config: { ...t.config, sweep: { ...t.config.sweep, interval: 0 } },
      database: t.server.deps.database,
      logger: createLogger('silent'),
      clock: () => new Date(now),
    });
    try {
      const analyzes = async () => (await statCounts('sessions')).analyzes;
      const before = await analyzes();
      await sweeper.runOnce();
      expect(await analyzes()).toBe(before + 1);
      now += ANALYZE_EVERY_MS - 60_000;
      await sweeper.runOnce();
      expect(await analyzes()).toBe(before + 1);
      now += 60_000;
      await sweeper.runOnce();
      expect(await analyzes()).toBe(before + 2);
    } finally {
      await sweeper.stop();
    }
  });
});
