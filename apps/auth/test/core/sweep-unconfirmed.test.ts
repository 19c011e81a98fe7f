// RETENTION_UNCONFIRMED_USERS (core/sweep.ts, db/sweep.repo.ts sweepUnconfirmedUsers): a sign-up
// nobody confirmed goes a retention after its last confirmation request, erased like an account
// deletion (its audit rows stay without the IP address); confirmed, invited, anonymous, recent and
// recently re-requested sign-ups stay. PGlite, and PostgreSQL when DATABASE_URL is set.
import { createClient } from '@supabase/supabase-js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { signUpConfirmed } from '../support/email-links.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

const SERVICE_KEY = 'sb_secret_sweep_unconfirmed_0123456789abcdef';
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    SWEEP_INTERVAL: '0',
    RETENTION_UNCONFIRMED_USERS: String(7 * 86400),
    EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
    SERVICE_ROLE_KEY: SERVICE_KEY,
  });
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.server.deps.db;
const count = async (query: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number | string }>(db(), query))[0]?.n);
const exists = (id: string) => count(sql`select count(*) as n from users where id = ${id}::uuid`);

/** Moves a user's creation (and, unless `keepRequest`, its last confirmation request) `days` back. */
async function age(id: string, days: number, keepRequest = false) {
  const back = sql`make_interval(days => ${days})`;
  await db().execute(sql`update users set created_at = created_at - ${back}
    ${keepRequest ? sql`` : sql`, confirmation_sent_at = confirmation_sent_at - ${back}`}
    where id = ${id}::uuid`);
}

async function signUpPending(email: string): Promise<string> {
  const { data, error } = await t.client().auth.signUp({ email, password: 'correct horse battery' });
  expect(error).toBeNull();
  await t.inbox.waitFor(email);
  return data.user!.id;
}

describe('never-confirmed sign-ups', () => {
  it('go after the retention, erased as a deletion; everything else stays', async () => {
    const staleEmail = uniqueEmail('stale');
    const stale = await signUpPending(staleEmail);
    const fresh = await signUpPending(uniqueEmail('fresh'));
    const rerequested = await signUpPending(uniqueEmail('rerequested'));
    const confirmedEmail = uniqueEmail('confirmed');
    await signUpConfirmed(t, confirmedEmail);
    const confirmed = (
      await queryRows<{ id: string }>(db(), sql`select id from users where email = ${confirmedEmail}`)
    )[0]!.id;
    const admin = createClient(t.url, SERVICE_KEY, { auth: { persistSession: false } }).auth.admin;
    const invitedRes = await admin.inviteUserByEmail(uniqueEmail('invited'));
    expect(invitedRes.error).toBeNull();
    const invited = invitedRes.data.user!.id;
    const anon = await t.client().auth.signInAnonymously();
    expect(anon.error).toBeNull();
    const anonymous = anon.data.user!.id;

    for (const id of [stale, confirmed, invited, anonymous]) await age(id, 8);
    await age(rerequested, 8, true); // created long ago, but asked for a new link just now
    // The stale sign-up's audit row carries the IP address of whoever typed the address.
    const ipBefore = await count(
      sql`select count(*) as n from audit_log_entries where actor_id = ${stale}::uuid and ip_address is not null`,
    );
    expect(ipBefore).toBeGreaterThan(0);

    const report = await t.server.sweeper.runOnce();
    expect(report.deleted.unconfirmed_users).toBe(1);
    expect(await exists(stale)).toBe(0);
    for (const id of [fresh, rerequested, confirmed, invited, anonymous]) expect(await exists(id)).toBe(1);
    // Its identity went with it; its audit rows stay, with no IP address.
    expect(await count(sql`select count(*) as n from identities where user_id = ${stale}::uuid`)).toBe(0);
    expect(
      await count(sql`select count(*) as n from audit_log_entries where actor_id = ${stale}::uuid`),
    ).toBeGreaterThan(0);
    expect(
      await count(
        sql`select count(*) as n from audit_log_entries where actor_id = ${stale}::uuid and ip_address is not null`,
      ),
    ).toBe(0);

    // The address is free again: a new sign-up is a new account.
    const again = await signUpPending(staleEmail);
    expect(again).not.toBe(stale);
  });

  it('a retention of 0 keeps them forever', async () => {
    const id = await signUpPending(uniqueEmail('forever'));
    await age(id, 400);
    const before = t.config.sweep.unconfirmedUsers;
    t.config.sweep.unconfirmedUsers = 0;
    try {
      const report = await t.server.sweeper.runOnce();
      expect(report.deleted.unconfirmed_users).toBeUndefined();
      expect(await exists(id)).toBe(1);
    } finally {
      t.config.sweep.unconfirmedUsers = before;
    }
    await t.server.sweeper.runOnce();
    expect(await exists(id)).toBe(0);
  });

  it('never goes while a confirmation link could still be used (MAILER_OTP_EXP above the retention)', async () => {
    const id = await signUpPending(uniqueEmail('live-link'));
    await age(id, 2);
    const before = { r: t.config.sweep.unconfirmedUsers, otp: t.config.MAILER_OTP_EXP };
    t.config.sweep.unconfirmedUsers = 86400; // one day…
    t.config.MAILER_OTP_EXP = 3 * 86400; // …but the link lives three
    try {
      await t.server.sweeper.runOnce();
      expect(await exists(id)).toBe(1);
    } finally {
      t.config.sweep.unconfirmedUsers = before.r;
      t.config.MAILER_OTP_EXP = before.otp;
    }
  });
});
