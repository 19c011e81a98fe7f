// Anonymous sign-in (issue #17) through the official client: off by default with GoTrue's answer,
// is_anonymous and amr anonymous, its own hourly per-IP limit, /settings, and the conversion into a
// permanent account (updateUser email → link → password) that keeps the id and the metadata.
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.ts';
import { awayFromWindowEdge } from '../../support/rate-window.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true', RATE_LIMIT_ANONYMOUS_USERS: '1000' });
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Anon-Suite-Pass-3391';

describe('switched off (the default)', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer();
  });
  afterAll(async () => {
    await off?.close();
  });

  it('answers 422 anonymous_provider_disabled, creates nothing, and /settings says so', async () => {
    const { data, error } = await off.client().auth.signInAnonymously();
    expect(error).toMatchObject({
      status: 422,
      code: 'anonymous_provider_disabled',
      message: 'Anonymous sign-ins are disabled',
    });
    expect(data.session).toBeNull();
    expect(await off.server.deps.db.select().from(users)).toHaveLength(0);
    const settings = (await (await off.api('/settings')).json()) as { external: Record<string, boolean> };
    expect(settings.external.anonymous_users).toBe(false);
  });
});

describe('switched on', () => {
  it('signInAnonymously: a session whose user is anonymous, with the data, amr anonymous', async () => {
    const sb = t.client();
    const { data, error } = await sb.auth.signInAnonymously({ options: { data: { theme: 'dark' } } });
    expect(error).toBeNull();
    const user = data.user;
    expect(user).toMatchObject({
      is_anonymous: true,
      email: '',
      phone: '',
      app_metadata: {},
      user_metadata: { theme: 'dark' },
      identities: [],
      role: 'authenticated',
    });
    const claims = decodeJwt(data.session?.access_token as string);
    expect(claims).toMatchObject({
      sub: user?.id,
      is_anonymous: true,
      amr: [{ method: 'anonymous' }],
      aal: 'aal1',
    });
    // The session refreshes like any other, and GET /user knows the user.
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.user?.id).toBe(user?.id);
    expect((await sb.auth.getUser()).data.user?.is_anonymous).toBe(true);
    const settings = (await (await t.api('/settings')).json()) as { external: Record<string, boolean> };
    expect(settings.external.anonymous_users).toBe(true);
  });

  it('is refused MFA enrolment (GoTrue: anonymous users have no factors)', async () => {
    const sb = t.client();
    await sb.auth.signInAnonymously();
    const { error } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    expect(error).toMatchObject({ status: 403 });
  });

  it("a password without an email is refused with GoTrue's 422", async () => {
    const sb = t.client();
    await sb.auth.signInAnonymously();
    const { error } = await sb.auth.updateUser({ password: PASSWORD });
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_failed',
      message: 'Updating password of an anonymous user without an email or phone is not allowed',
    });
  });

  it('converts into a permanent account (email link, then password), keeping id and data', async () => {
    const sb = t.client();
    const { data } = await sb.auth.signInAnonymously({ options: { data: { cart: ['a', 'b'] } } });
    const id = data.user?.id as string;
    const email = uniqueEmail('anon-convert');
    const update = await sb.auth.updateUser({ email });
    expect(update.error).toBeNull();
    expect(update.data.user).toMatchObject({ id, new_email: email, is_anonymous: true });
    // One link, to the new address (there is no current address to confirm from).
    const mail = await t.inbox.waitFor(email);
    const res = await fetch(mail.links[0] as string, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const fragment = new URLSearchParams(new URL(res.headers.get('location') as string).hash.slice(1));
    const access = fragment.get('access_token') as string;
    expect(access).toBeTruthy();
    expect(decodeJwt(access)).toMatchObject({ sub: id, email, is_anonymous: false });
    const { data: session } = await sb.auth.setSession({
      access_token: access,
      refresh_token: fragment.get('refresh_token') as string,
    });
    expect(session.user).toMatchObject({
      id,
      email,
      is_anonymous: false,
      user_metadata: { cart: ['a', 'b'] },
      app_metadata: { provider: 'email', providers: ['email'] },
    });
    expect(session.user?.identities).toEqual([
      expect.objectContaining({
        provider: 'email',
        id,
        identity_data: expect.objectContaining({ email, email_verified: true }),
      }),
    ]);
    // Now a permanent account, it may set a password and sign in with it.
    expect((await sb.auth.updateUser({ password: PASSWORD })).error).toBeNull();
    const signIn = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user).toMatchObject({ id, is_anonymous: false, user_metadata: { cart: ['a', 'b'] } });
  });

  it('an address that already has an account is refused (422 email_exists)', async () => {
    const taken = uniqueEmail('anon-taken');
    t.config.MAILER_AUTOCONFIRM = true;
    try {
      await t.client().auth.signUp({ email: taken, password: PASSWORD });
    } finally {
      t.config.MAILER_AUTOCONFIRM = false;
    }
    const sb = t.client();
    await sb.auth.signInAnonymously();
    expect((await sb.auth.updateUser({ email: taken })).error).toMatchObject({
      status: 422,
      code: 'email_exists',
    });
  });

  it('under MAILER_AUTOCONFIRM the first email is taken at once (GoTrue), then a password', async () => {
    const sb = t.client();
    const { data } = await sb.auth.signInAnonymously({ options: { data: { k: 1 } } });
    const email = uniqueEmail('anon-auto');
    t.config.MAILER_AUTOCONFIRM = true;
    try {
      const { data: updated, error } = await sb.auth.updateUser({ email, password: PASSWORD });
      expect(error).toBeNull();
      expect(updated.user).toMatchObject({
        id: data.user?.id,
        email,
        is_anonymous: false,
        user_metadata: { k: 1 },
      });
      expect(updated.user?.email_confirmed_at).toBeTruthy();
    } finally {
      t.config.MAILER_AUTOCONFIRM = false;
    }
    const signIn = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.data.user?.id).toBe(data.user?.id);
  });

  it('DISABLE_SIGNUP closes anonymous sign-ins too (422 signup_disabled)', async () => {
    t.config.DISABLE_SIGNUP = true;
    try {
      expect((await t.client().auth.signInAnonymously()).error).toMatchObject({
        status: 422,
        code: 'signup_disabled',
      });
    } finally {
      t.config.DISABLE_SIGNUP = false;
    }
  });

  it('bad data is a 400, never a 500', async () => {
    for (const data of [[1], 'x', 7]) {
      const res = await t.api('/signup', { method: 'POST', body: JSON.stringify({ data }) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error_code: string }).error_code).toBe('validation_failed');
    }
  });
});

describe('rate limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
      RATE_LIMIT_ANONYMOUS_USERS: '3',
      TRUST_PROXY: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await limited?.close();
  });

  const anon = (ip: string) =>
    limited.api('/signup', { method: 'POST', body: '{}', headers: { 'x-forwarded-for': ip } });

  it('RATE_LIMIT_ANONYMOUS_USERS per IP per hour, apart from the sign-up budget; then 429 with Retry-After', async () => {
    await awayFromWindowEdge(3600);
    for (let i = 0; i < 3; i++) expect((await anon('10.9.0.1')).status).toBe(200);
    const over = await anon('10.9.0.1');
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error_code: string }).error_code).toBe('over_request_rate_limit');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600); // an hourly window
    expect((await anon('10.9.0.2')).status).toBe(200);
    const rows = await limited.server.deps.db.select().from(users).where(eq(users.isAnonymous, true));
    expect(rows).toHaveLength(4);
  });
});
