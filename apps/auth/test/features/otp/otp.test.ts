// Passwordless email sign-in (POST /otp, issue #17) through the official client: magic link and
// 6-digit code in one mail, create_user, data, PKCE, single use, 20 parallel verifies, bad input,
// and an unknown address with create_user false answered like a known one.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Otp-Suite-Pass-8812';

/** A confirmed account with a password (sign-up, then its confirmation link). */
async function confirmedAccount(): Promise<string> {
  const email = uniqueEmail('otp-known');
  const { error } = await t.client().auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  const mail = await t.inbox.waitFor(email);
  expect((await fetch(mail.links[0] as string, { redirect: 'manual' })).status).toBe(303);
  return email;
}

function fragmentOf(res: Response): URLSearchParams {
  expect(res.status).toBe(303);
  return new URLSearchParams(new URL(res.headers.get('location') as string).hash.slice(1));
}

async function userRow(email: string) {
  const [row] = await t.server.deps.db.select().from(users).where(eq(users.email, email));
  return row;
}

describe('magic link for an existing account', () => {
  it('mails a link and a code; the link signs in once with amr otp and type magiclink', async () => {
    const email = await confirmedAccount();
    const sb = t.client();
    const { data, error } = await sb.auth.signInWithOtp({
      email,
      options: { emailRedirectTo: `${t.url}/welcome` },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ user: null, session: null });
    const mail = await t.inbox.waitFor(email);
    expect(mail.subject).toMatch(/sign-in link/i);
    expect(mail.code).toMatch(/^\d{6}$/);
    const link = new URL(mail.links[0] as string);
    expect(link.searchParams.get('type')).toBe('magiclink');

    const first = fragmentOf(await fetch(link, { redirect: 'manual' }));
    expect(first.get('type')).toBe('magiclink');
    const access = first.get('access_token') as string;
    expect(decodeJwt(access)).toMatchObject({ email, amr: [{ method: 'otp' }], is_anonymous: false });
    const { data: user } = await sb.auth.getUser(access);
    expect(user.user?.email).toBe(email);

    // Single use: the same link again, and its code, are refused.
    const again = fragmentOf(await fetch(link, { redirect: 'manual' }));
    expect(again.get('error_code')).toBe('otp_expired');
    const code = await sb.auth.verifyOtp({ email, token: mail.code as string, type: 'email' });
    expect(code.error).toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it('the code signs in through verifyOtp type email and type magiclink, once', async () => {
    for (const type of ['email', 'magiclink'] as const) {
      const email = await confirmedAccount();
      const sb = t.client();
      expect((await sb.auth.signInWithOtp({ email })).error).toBeNull();
      const mail = await t.inbox.waitFor(email);
      const ok = await sb.auth.verifyOtp({ email, token: mail.code as string, type });
      expect(ok.error).toBeNull();
      expect(ok.data.session?.user.email).toBe(email);
      expect(decodeJwt(ok.data.session?.access_token as string).amr).toEqual([
        expect.objectContaining({ method: 'otp' }),
      ]);
      const twice = await t.client().auth.verifyOtp({ email, token: mail.code as string, type });
      expect(twice.error).toMatchObject({ status: 403, code: 'otp_expired' });
      // The password still works: a magic link changes nothing about the account.
      expect((await t.client().auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    }
  });

  it('a newer magic link replaces the earlier one; a wrong code is refused', async () => {
    const email = await confirmedAccount();
    const sb = t.client();
    await sb.auth.signInWithOtp({ email });
    const older = await t.inbox.waitFor(email);
    await sb.auth.signInWithOtp({ email });
    const newer = await t.inbox.waitFor(email);
    expect(fragmentOf(await fetch(older.links[0] as string, { redirect: 'manual' })).get('error_code')).toBe(
      'otp_expired',
    );
    const wrong = String((Number(newer.code) + 1) % 1_000_000).padStart(6, '0');
    expect((await sb.auth.verifyOtp({ email, token: wrong, type: 'email' })).error).toMatchObject({
      status: 403,
      code: 'otp_expired',
    });
    expect((await sb.auth.verifyOtp({ email, token: newer.code as string, type: 'email' })).error).toBeNull();
  });

  it('20 parallel verifies of one code: exactly one session', async () => {
    const email = await confirmedAccount();
    await t.client().auth.signInWithOtp({ email });
    const mail = await t.inbox.waitFor(email);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.api('/verify', {
          method: 'POST',
          body: JSON.stringify({ type: 'email', email, token: mail.code }),
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(19);
  });

  it('20 parallel follows of one link: exactly one session', async () => {
    const email = await confirmedAccount();
    await t.client().auth.signInWithOtp({ email });
    const mail = await t.inbox.waitFor(email);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => fetch(mail.links[0] as string, { redirect: 'manual' })),
    );
    const fragments = results.map(fragmentOf);
    expect(fragments.filter((f) => f.has('access_token'))).toHaveLength(1);
    expect(fragments.filter((f) => f.get('error_code') === 'otp_expired')).toHaveLength(19);
  });

  it('under PKCE the link redirects with ?code= and exchangeCodeForSession signs in', async () => {
    const email = await confirmedAccount();
    const sb = pkceClient();
    expect(
      (await sb.auth.signInWithOtp({ email, options: { emailRedirectTo: `${t.url}/cb` } })).error,
    ).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expect(new URL(mail.links[0] as string).searchParams.get('token')).toMatch(/^pkce_/);
    const res = await fetch(mail.links[0] as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(location.hash).toBe('');
    const { data, error } = await sb.auth.exchangeCodeForSession(location.searchParams.get('code') as string);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect(decodeJwt(data.session?.access_token as string).amr).toEqual([
      expect.objectContaining({ method: 'magiclink' }),
    ]);
  });
});

describe('new addresses', () => {
  it('creates a passwordless account with the data; the mailed code confirms it and signs in', async () => {
    const email = uniqueEmail('otp-new');
    const sb = t.client();
    const { error } = await sb.auth.signInWithOtp({ email, options: { data: { plan: 'growth' } } });
    expect(error).toBeNull();
    const row = await userRow(email);
    expect(row).toMatchObject({
      encryptedPassword: null,
      emailConfirmedAt: null,
      userMetadata: { plan: 'growth' },
    });
    const mail = await t.inbox.waitFor(email);
    const { data, error: verifyError } = await sb.auth.verifyOtp({
      email,
      token: mail.code as string,
      type: 'email',
    });
    expect(verifyError).toBeNull();
    expect(data.user).toMatchObject({ email, user_metadata: { plan: 'growth', email_verified: true } });
    expect(data.user?.email_confirmed_at).toBeTruthy();
    // No password was ever set: a password sign-in fails like any wrong password.
    const pw = await t.client().auth.signInWithPassword({ email, password: 'anything-at-all' });
    expect(pw.error).toMatchObject({ status: 400, code: 'invalid_credentials' });
    // The next request is a magic link to the now confirmed account.
    await t.client().auth.signInWithOtp({ email });
    const next = await t.inbox.waitFor(email);
    expect(new URL(next.links[0] as string).searchParams.get('type')).toBe('magiclink');
  });

  it('the sign-up link of a new address signs in too (type signup in the fragment)', async () => {
    const email = uniqueEmail('otp-new-link');
    await t.client().auth.signInWithOtp({ email });
    const mail = await t.inbox.waitFor(email);
    const f = fragmentOf(await fetch(mail.links[0] as string, { redirect: 'manual' }));
    expect(f.get('type')).toBe('signup');
    expect(decodeJwt(f.get('access_token') as string)).toMatchObject({ email });
  });

  it('a pending password sign-up loses the stranger-chosen password when the owner asks for a code', async () => {
    const email = uniqueEmail('otp-pending');
    await t.client().auth.signUp({ email, password: PASSWORD, options: { data: { by: 'stranger' } } });
    const strangers = await t.inbox.waitFor(email);
    await t.client().auth.signInWithOtp({ email });
    const owners = await t.inbox.waitFor(email);
    // The stranger's link died with the fresh one.
    expect(
      fragmentOf(await fetch(strangers.links[0] as string, { redirect: 'manual' })).get('error_code'),
    ).toBe('otp_expired');
    const { data, error } = await t
      .client()
      .auth.verifyOtp({ email, token: owners.code as string, type: 'email' });
    expect(error).toBeNull();
    expect(data.user?.user_metadata).not.toHaveProperty('by');
    const pw = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(pw.error).toMatchObject({ code: 'invalid_credentials' });
  });

  it('shouldCreateUser false: an unknown address answers {} like a known one, and nothing is created or sent', async () => {
    const unknown = uniqueEmail('otp-nobody');
    const known = await confirmedAccount();
    const a = await t.api('/otp', {
      method: 'POST',
      body: JSON.stringify({ email: unknown, create_user: false }),
    });
    const b = await t.api('/otp', {
      method: 'POST',
      body: JSON.stringify({ email: known, create_user: false }),
    });
    expect([a.status, await a.text()]).toEqual([200, '{}']);
    expect([b.status, await b.text()]).toEqual([200, '{}']);
    expect(
      (await t.client().auth.signInWithOtp({ email: unknown, options: { shouldCreateUser: false } })).error,
    ).toBeNull();
    expect(await userRow(unknown)).toBeUndefined();
    await t.inbox.waitFor(known); // the known address got its link
    await expect(t.inbox.waitFor(unknown, undefined, 500)).rejects.toThrow();
  });

  it('with MAILER_AUTOCONFIRM a new address is confirmed at once and gets a magic link', async () => {
    t.config.MAILER_AUTOCONFIRM = true;
    try {
      const email = uniqueEmail('otp-auto');
      expect((await t.client().auth.signInWithOtp({ email })).error).toBeNull();
      expect((await userRow(email))?.emailConfirmedAt).toBeTruthy();
      const mail = await t.inbox.waitFor(email);
      expect(new URL(mail.links[0] as string).searchParams.get('type')).toBe('magiclink');
    } finally {
      t.config.MAILER_AUTOCONFIRM = false;
    }
  });

  it('10 parallel requests for one new address make one account', async () => {
    const email = uniqueEmail('otp-race');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.api('/otp', { method: 'POST', body: JSON.stringify({ email }) })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const rows = await t.server.deps.db.select().from(users).where(eq(users.email, email));
    expect(rows).toHaveLength(1);
  });
});

describe('bad input (GoTrue answers)', () => {
  const post = async (body: unknown) => {
    const res = await t.api('/otp', { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  it.each([
    [{}, 400, 'validation_failed', 'One of email or phone must be set'],
    [{ email: 'not-an-email' }, 400, 'validation_failed', 'Unable to validate email address: invalid format'],
    [
      { email: 'a@b.co', phone: '+15555550100' },
      400,
      'validation_failed',
      'Only an email address or phone number should be provided',
    ],
    [
      { email: 'a@b.co', channel: 'sms' },
      400,
      'validation_failed',
      'Channel should only be specified with Phone OTP',
    ],
    [
      { email: 'a@b.co', code_challenge: 'x'.repeat(50) },
      400,
      'validation_failed',
      'PKCE flow requires code_challenge_method and code_challenge',
    ],
    [{ phone: '+15555550100' }, 400, 'phone_provider_disabled', 'Unsupported phone provider'],
    [{ email: 'a@b.co', data: [1, 2] }, 400, 'validation_failed', 'data must be an object'],
    [{ email: 42 }, 400, 'validation_failed', undefined],
    [{ email: 'a@b.co', create_user: 'no' }, 400, 'validation_failed', undefined],
  ])('%j → %i %s', async (body, status, code, msg) => {
    const r = await post(body);
    expect(r.status).toBe(status);
    expect(r.body.error_code).toBe(code);
    if (msg) expect(r.body.msg).toBe(msg);
  });

  it('a rate-limited address answers 429 over_email_send_rate_limit, known or not', async () => {
    const known = await confirmedAccount();
    t.config.rateLimits.emailFloor = 60;
    try {
      for (const email of [known, uniqueEmail('otp-floor')]) {
        expect((await post({ email, create_user: false })).status).toBe(200);
        const second = await post({ email, create_user: false });
        expect([second.status, second.body.error_code]).toEqual([429, 'over_email_send_rate_limit']);
      }
    } finally {
      t.config.rateLimits.emailFloor = 0;
    }
  });
});

function pkceClient(): SupabaseClient {
  const store = new Map<string, string>();
  return createClient(t.url, t.anonKey, {
    auth: {
      flowType: 'pkce',
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      storage: {
        getItem: (k) => store.get(k) ?? null,
        setItem: (k, v) => void store.set(k, v),
        removeItem: (k) => void store.delete(k),
      },
    },
  });
}
