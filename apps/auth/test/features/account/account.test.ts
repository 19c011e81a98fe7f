// The account page's extension endpoints (features/account) on the real service, through supabase-js
// and the raw API, with mail received by a real SMTP server: the sessions list, the data export and
// the deletion of an account by its owner (reauthentication, aal2, one transaction, audit kept
// without personal data, a confirmation mail), their authorization, bad input and a deletion racing
// a refresh. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Account-Page-Pass-83';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', RATE_LIMIT_OTP_PER_IP: '1000' });
});
afterAll(async () => {
  await t?.close();
});

const totp = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

async function call(token: string | undefined, method: string, path: string, body?: unknown, raw?: string) {
  const res = await t.api(path, {
    method,
    // GoTrue's current error shape ({code, message}), as supabase-js asks for it.
    headers: {
      'x-supabase-api-version': '2024-01-01',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the tests read nested fields of the JSON answers
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
}

/** A new account signed in through supabase-js (confirmation is automatic on this server). */
async function account(prefix = 'acct') {
  const email = uniqueEmail(prefix);
  const sb = t.client();
  const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  const session = data.session as NonNullable<typeof data.session>;
  return { sb, email, token: session.access_token, refresh: session.refresh_token, id: session.user.id };
}

/** The nonce mailed by GET /reauthenticate. */
async function nonceFor(token: string, email: string): Promise<string> {
  expect((await call(token, 'GET', '/reauthenticate')).status).toBe(200);
  return (await t.inbox.waitFor(email, (m) => /code/i.test(m.subject))).code as string;
}

const count = async (query: ReturnType<typeof sql>) =>
  Number(
    ((await t.server.deps.db.execute(query)) as unknown as { rows: { n: number | string }[] }).rows[0]?.n,
  );

async function leftOf(id: string, email: string) {
  const [users, identities, sessions, tokens, factors, otts, mail, passkeys] = await Promise.all([
    count(sql`select count(*) as n from users where id = ${id} or email = ${email}`),
    count(sql`select count(*) as n from identities where user_id = ${id}`),
    count(sql`select count(*) as n from sessions where user_id = ${id}`),
    count(sql`select count(*) as n from refresh_tokens where user_id = ${id}`),
    count(sql`select count(*) as n from mfa_factors where user_id = ${id}`),
    count(sql`select count(*) as n from one_time_tokens where user_id = ${id}`),
    count(sql`select count(*) as n from mail_outbox where user_id = ${id}`),
    count(sql`select count(*) as n from passkeys where user_id = ${id}`),
  ]);
  return { users, identities, sessions, tokens, factors, otts, mail, passkeys };
}
const nothing = {
  users: 0,
  identities: 0,
  sessions: 0,
  tokens: 0,
  factors: 0,
  otts: 0,
  mail: 0,
  passkeys: 0,
};

describe('GET /account/sessions', () => {
  it("lists the user's own sessions with user agent and last activity, marking the current one", async () => {
    const a = await account('sess');
    const other = await t.api('/token?grant_type=password', {
      method: 'POST',
      headers: { 'user-agent': 'Second Device/1.0' },
      body: JSON.stringify({ email: a.email, password: PASSWORD }),
    });
    expect(other.status).toBe(200);
    const someoneElse = await account('sess-other');
    const res = await call(a.token, 'GET', '/account/sessions');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const sessions = res.body.sessions as Array<Record<string, unknown>>;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    expect(sessions.find((s) => s.current)?.id).toBe(decodeJwt(a.token).session_id);
    expect(sessions.map((s) => s.user_agent)).toContain('Second Device/1.0');
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual([
        'aal',
        'created_at',
        'current',
        'id',
        'last_active_at',
        'user_agent',
      ]);
      expect(Number.isNaN(Date.parse(s.last_active_at as string))).toBe(false);
    }
    // Only the caller's: the other account's session is not among them.
    expect(sessions.map((s) => s.id)).not.toContain(decodeJwt(someoneElse.token).session_id);
    // After "sign out of all other devices" only this one is left.
    expect((await a.sb.auth.signOut({ scope: 'others' })).error).toBeNull();
    const after = await call(a.token, 'GET', '/account/sessions');
    expect(after.body.sessions).toHaveLength(1);
  });

  it('needs a signed-in user', async () => {
    expect((await call(undefined, 'GET', '/account/sessions')).body.code).toBe('no_authorization');
    expect((await call('not.a.jwt', 'GET', '/account/sessions')).body.code).toBe('bad_jwt');
    expect((await t.api('/account/sessions', { headers: { apikey: '' } })).status).toBe(401);
  });
});

describe('GET /account/export', () => {
  it('gives profile, identities, factors without secrets, sessions and audit events, nothing of others', async () => {
    const a = await account('export');
    const other = await account('export-other');
    const enrolled = await call(a.token, 'POST', '/factors', {
      factor_type: 'totp',
      friendly_name: 'phone app',
    });
    const secret = enrolled.body.totp.secret as string;
    const res = await call(a.token, 'GET', '/account/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('attachment');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const data = res.body;
    expect(data.format).toBe('namaa-account-export');
    expect(data.user.email).toBe(a.email);
    expect(data.user.identities[0].provider).toBe('email');
    expect(data.user.factors).toEqual([
      expect.objectContaining({ id: enrolled.body.id, friendly_name: 'phone app', factor_type: 'totp' }),
    ]);
    expect(data.sessions).toHaveLength(1);
    expect(data.passkeys).toEqual([]);
    expect(data.audit_events.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['user_signedup', 'factor_enrolled']),
    );
    const text = JSON.stringify(data);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(other.email);
    expect(text).not.toContain(other.id);
    expect(text).not.toMatch(/encrypted_password|argon2/);
  });
});

describe('DELETE /account', () => {
  it('with the reauthentication nonce: everything goes in one step, audit stays without personal data, a mail confirms', async () => {
    const a = await account('delete');
    // A second device, a pending email change and an unverified factor: all must go.
    const second = t.client();
    expect((await second.auth.signInWithPassword({ email: a.email, password: PASSWORD })).error).toBeNull();
    await call(a.token, 'POST', '/factors', { factor_type: 'totp' });
    const nonce = await nonceFor(a.token, a.email);
    const res = await call(a.token, 'DELETE', '/account', { nonce });
    expect(res.status).toBe(204);
    expect(await leftOf(a.id, a.email)).toEqual(nothing);
    // Every device is signed out: the access token's session is gone, the refresh tokens are dead.
    expect((await call(a.token, 'GET', '/user')).status).toBe(403);
    expect((await t.client().auth.refreshSession({ refresh_token: a.refresh })).error?.code).toBe(
      'refresh_token_not_found',
    );
    expect((await second.auth.getUser()).error).not.toBeNull();
    // The audit trail stays, without an address of any kind.
    const rows = (
      (await t.server.deps.db.execute(
        sql`select action, ip_address, payload from audit_log_entries where actor_id = ${a.id}`,
      )) as unknown as { rows: { action: string; ip_address: string | null; payload: unknown }[] }
    ).rows;
    expect(rows.map((r) => r.action)).toEqual(expect.arrayContaining(['user_signedup', 'user_deleted']));
    for (const r of rows) {
      expect(r.ip_address).toBeNull();
      expect(JSON.stringify(r.payload)).not.toContain(a.email);
    }
    const mail = await t.inbox.waitFor(a.email, (m) => /deleted/.test(m.subject));
    expect(mail.text).toContain(a.email);
    expect(mail.links).toEqual([]);
    // The address is free again.
    const again = await t.client().auth.signUp({ email: a.email, password: PASSWORD });
    expect(again.error).toBeNull();
    expect(again.data.user?.id).not.toBe(a.id);
  });

  it('the rate-limit rows naming the address go with it (known network, back-off, mail and code windows); another address’s stay', async () => {
    const a = await account('delete-limits');
    // An address that starts with a's: a prefix of a's keys must not reach it.
    const neighbour = `${a.email}x`;
    const n = t.client();
    expect((await n.auth.signUp({ email: neighbour, password: PASSWORD })).error).toBeNull();
    for (const email of [a.email, neighbour]) {
      const sb = t.client();
      // A success stamps the network as known to the account; a failure after it leaves a back-off row.
      expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
      expect(
        (await sb.auth.signInWithPassword({ email, password: 'wrong-password-1' })).error,
      ).not.toBeNull();
    }
    const nonce = await nonceFor(a.token, a.email);
    // A wrong nonce counts against the address's code window.
    const wrong = await call(a.token, 'DELETE', '/account', {
      nonce: nonce === '000000' ? '111111' : '000000',
    });
    expect([wrong.status, wrong.body.code]).toEqual([422, 'reauthentication_not_valid']);
    const keysNaming = async (email: string) =>
      (
        (await t.server.deps.db.execute(
          sql`select key from rate_limit_counters where position(${email} in key) > 0 order by key`,
        )) as unknown as { rows: { key: string }[] }
      ).rows
        .map((r) => r.key)
        .filter((k) => k.split(':').includes(email));
    const before = await keysNaming(a.email);
    for (const kind of ['known:signin:', 'backoff:signin:', 'signin:acct:', 'email:', 'verify:code:'])
      expect(
        before.some((k) => k.startsWith(kind)),
        `${kind} row before`,
      ).toBe(true);
    const neighbours = await keysNaming(neighbour);
    expect(neighbours.some((k) => k.startsWith('known:signin:'))).toBe(true);

    expect((await call(a.token, 'DELETE', '/account', { nonce })).status).toBe(204);
    expect(await keysNaming(a.email)).toEqual([]);
    expect(await keysNaming(neighbour)).toEqual(neighbours);
  });

  it('refuses without reauthentication, with a wrong or spent nonce, and with bad input (4xx, nothing deleted)', async () => {
    const a = await account('delete-refused');
    expect((await call(a.token, 'DELETE', '/account', {})).body.code).toBe('reauthentication_needed');
    expect((await call(a.token, 'DELETE', '/account')).body.code).toBe('reauthentication_needed');
    const nonce = await nonceFor(a.token, a.email);
    const wrong = nonce === '000000' ? '111111' : '000000';
    const bad = await call(a.token, 'DELETE', '/account', { nonce: wrong });
    expect([bad.status, bad.body.code]).toEqual([422, 'reauthentication_not_valid']);
    for (const [body, raw] of [
      [{ nonce: 123456 }, undefined],
      [{ nonce: ['123456'] }, undefined],
      [{ nonce: 'x'.repeat(101) }, undefined],
      [undefined, '{"nonce":'],
      [undefined, '[]'],
      [undefined, `{"nonce":"${'1'.repeat(2_000_000)}"}`],
      [{ nonce: "1' or '1'='1" }, undefined],
    ] as const) {
      const r = await call(a.token, 'DELETE', '/account', body, raw);
      expect(r.status, JSON.stringify(body ?? raw).slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(typeof r.body.code).toBe('string');
    }
    // Someone else's nonce does not delete this account.
    const b = await account('delete-other');
    const bNonce = await nonceFor(b.token, b.email);
    expect((await call(a.token, 'DELETE', '/account', { nonce: bNonce })).status).toBe(422);
    // The account is still whole, and the right nonce still works.
    expect((await call(a.token, 'GET', '/user')).status).toBe(200);
    expect((await call(a.token, 'DELETE', '/account', { nonce })).status).toBe(204);
    // Spent: the same nonce on b's account does nothing (it was never b's).
    expect((await call(b.token, 'DELETE', '/account', { nonce })).status).toBe(422);
    expect((await call(b.token, 'GET', '/user')).status).toBe(200);
  });

  it('needs aal2 when the account has a verified factor', async () => {
    const a = await account('delete-aal');
    const enrolled = await call(a.token, 'POST', '/factors', { factor_type: 'totp' });
    const id = enrolled.body.id as string;
    const ch = await call(a.token, 'POST', `/factors/${id}/challenge`, {});
    const v = await call(a.token, 'POST', `/factors/${id}/verify`, {
      challenge_id: ch.body.id,
      code: await totp(enrolled.body.totp.secret),
    });
    const aal2 = v.body.access_token as string;
    // Another device with only the password: aal1.
    const { data } = await t.client().auth.signInWithPassword({ email: a.email, password: PASSWORD });
    const aal1 = data.session?.access_token as string;
    expect(decodeJwt(aal1).aal).toBe('aal1');
    const nonce = await nonceFor(aal1, a.email);
    const refused = await call(aal1, 'DELETE', '/account', { nonce });
    expect([refused.status, refused.body.code]).toEqual([401, 'insufficient_aal']);
    expect((await call(aal2, 'GET', '/user')).status).toBe(200);
    // The nonce was not spent by the refusal: the aal2 session deletes with it.
    expect((await call(aal2, 'DELETE', '/account', { nonce })).status).toBe(204);
    expect(await leftOf(a.id, a.email)).toEqual(nothing);
  });

  it('while refreshes are in flight: no 5xx, nothing left behind', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await account(`delete-race-${round}`);
      // More devices, each with a refresh token to spend during the deletion.
      const refreshTokens = [a.refresh];
      for (let i = 0; i < 4; i++) {
        const { data } = await t.client().auth.signInWithPassword({ email: a.email, password: PASSWORD });
        refreshTokens.push(data.session?.refresh_token as string);
      }
      const nonce = await nonceFor(a.token, a.email);
      const refreshes = refreshTokens.flatMap((token) =>
        [0, 1].map(() =>
          t.api('/token?grant_type=refresh_token', {
            method: 'POST',
            body: JSON.stringify({ refresh_token: token }),
          }),
        ),
      );
      const [deleted, ...answers] = await Promise.all([
        t.api('/account', {
          method: 'DELETE',
          headers: { authorization: `Bearer ${a.token}` },
          body: JSON.stringify({ nonce }),
        }),
        ...refreshes,
      ]);
      expect(deleted.status).toBe(204);
      for (const r of answers) expect(r.status, await r.clone().text()).toBeLessThan(500);
      expect(await leftOf(a.id, a.email)).toEqual(nothing);
      // No refresh token of the account works any more, rotated or not.
      for (const token of refreshTokens) {
        const r = await t.api('/token?grant_type=refresh_token', {
          method: 'POST',
          body: JSON.stringify({ refresh_token: token }),
        });
        expect(r.status).toBe(400);
      }
    }
  });

  it('two deletions of one account at once: one succeeds, the other is a 4xx', async () => {
    const a = await account('delete-twice');
    const nonce = await nonceFor(a.token, a.email);
    const answers = await Promise.all(
      [0, 1].map(() =>
        t.api('/account', {
          method: 'DELETE',
          headers: { authorization: `Bearer ${a.token}` },
          body: JSON.stringify({ nonce }),
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses[0]).toBe(204);
    expect(statuses[1]).toBeGreaterThanOrEqual(400);
    expect(statuses[1]).toBeLessThan(500);
    expect(await leftOf(a.id, a.email)).toEqual(nothing);
  });
});

describe('OpenAPI', () => {
  it('documents the three endpoints as Namaa extensions, not GoTrue', async () => {
    const doc = (await (await t.api('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { tags?: string[]; 'x-namaa-extension'?: boolean }>>;
    };
    for (const [path, method] of [
      ['/account/sessions', 'get'],
      ['/account/export', 'get'],
      ['/account', 'delete'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op?.tags, `${method} ${path}`).toEqual(['Namaa extensions']);
      expect(op?.['x-namaa-extension']).toBe(true);
    }
    // GoTrue's own endpoints carry no such mark.
    expect(doc.paths['/user']?.get?.['x-namaa-extension']).toBeUndefined();
  });
});
