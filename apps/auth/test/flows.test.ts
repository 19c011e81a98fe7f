// Every email + password flow of issue 2, driven by the official supabase-js client against the real
// service, with mail received by a real SMTP server and links followed over HTTP.
import { sql } from 'drizzle-orm';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from './support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** Follows an email link without following the 303, and returns the fragment parameters. */
async function followLink(link: string): Promise<{ location: URL; params: URLSearchParams }> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') as string);
  return { location, params: new URLSearchParams(location.hash.slice(1)) };
}

async function signUpConfirmed(email: string, password = 'correct horse') {
  const sb = t.client();
  const { error } = await sb.auth.signUp({ email, password });
  expect(error).toBeNull();
  const mail = await t.inbox.waitFor(email);
  await followLink(mail.links[0] as string);
  return sb;
}

describe('sign-up with email confirmation', () => {
  it('returns a user without a session, mails a link that confirms and signs in', async () => {
    const email = uniqueEmail('signup');
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({
      email: email.toUpperCase(),
      password: 'secret-pass',
      options: { data: { name: 'Sara' }, emailRedirectTo: `${t.url}/welcome` },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata).toEqual({ name: 'Sara' });
    expect(data.user?.identities).toHaveLength(1);
    expect(data.user?.email_confirmed_at).toBeUndefined();

    // Not confirmed yet: the right password learns "Email not confirmed", a wrong one does not.
    const early = await sb.auth.signInWithPassword({ email, password: 'secret-pass' });
    expect(early.error?.code).toBe('email_not_confirmed');
    const wrong = await sb.auth.signInWithPassword({ email, password: 'not-the-one' });
    expect(wrong.error?.code).toBe('invalid_credentials');

    const mail = await t.inbox.waitFor(email);
    expect(mail.subject).toMatch(/confirm/i);
    expect(mail.code).toMatch(/^\d{6}$/);
    const link = new URL(mail.links[0] as string);
    expect(link.origin + link.pathname).toBe(`${t.url}/auth/v1/verify`);
    expect(link.searchParams.get('type')).toBe('signup');
    expect(link.searchParams.get('redirect_to')).toBe(`${t.url}/welcome`);

    const { location, params } = await followLink(link.href);
    expect(location.origin + location.pathname).toBe(`${t.url}/welcome`);
    expect(params.get('type')).toBe('signup');
    expect(params.get('token_type')).toBe('bearer');
    const access = params.get('access_token') as string;
    const claims = decodeJwt(access);
    expect(claims.email).toBe(email);
    expect(claims.amr).toEqual([expect.objectContaining({ method: 'otp' })]);

    // The session from the link works with the client.
    const linked = t.client();
    const set = await linked.auth.setSession({
      access_token: access,
      refresh_token: params.get('refresh_token') as string,
    });
    expect(set.error).toBeNull();
    expect(set.data.user?.email_confirmed_at).toBeTruthy();
    expect(set.data.user?.user_metadata.email_verified).toBe(true);

    // Single use: the same link again redirects with otp_expired.
    const again = await followLink(link.href);
    expect(again.params.get('error_code')).toBe('otp_expired');
    expect(again.params.get('error_description')).toBe('Email link is invalid or has expired');

    const signIn = await sb.auth.signInWithPassword({ email, password: 'secret-pass' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.access_token).toBeTruthy();
    expect(signIn.data.weakPassword ?? null).toBeNull();
  });

  it('confirms with the 6-digit code (verifyOtp) instead of the link', async () => {
    const email = uniqueEmail('otp');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const bad = await sb.auth.verifyOtp({
      email,
      token: mail.code === '000000' ? '111111' : '000000',
      type: 'signup',
    });
    expect(bad.error?.code).toBe('otp_expired');
    const { data, error } = await sb.auth.verifyOtp({ email, token: mail.code as string, type: 'signup' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    const reuse = await t.client().auth.verifyOtp({ email, token: mail.code as string, type: 'signup' });
    expect(reuse.error?.code).toBe('otp_expired');
  });

  it('confirms with token_hash (verifyOtp) — the link token, for scanner-safe pages', async () => {
    const email = uniqueEmail('hash');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const token = new URL(mail.links[0] as string).searchParams.get('token') as string;
    const { data, error } = await sb.auth.verifyOtp({ token_hash: token, type: 'email' });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
  });

  it('answers a sign-up of a confirmed email with the enumeration-safe fake user and sends nothing', async () => {
    const email = uniqueEmail('dup');
    await signUpConfirmed(email);
    const before = t.inbox.all().filter((m) => m.to === email).length;
    const { data, error } = await t.client().auth.signUp({ email, password: 'another-pass' });
    expect(error).toBeNull();
    expect(data.user?.identities).toEqual([]);
    expect(data.session).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(t.inbox.all().filter((m) => m.to === email).length).toBe(before);
    // The password did not change.
    expect((await t.client().auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
  });

  // Account pre-hijacking: a stranger signs up with the owner's address first; the owner later signs
  // up too and clicks the link. The account must end up with the owner's password and metadata.
  it("lets a repeated sign-up of a pending address replace it: the stranger's earlier password and link stop working", async () => {
    const email = uniqueEmail('unconf');
    const stranger = t.client();
    await stranger.auth.signUp({ email, password: 'stranger-pass', options: { data: { name: 'Stranger' } } });
    const strangersMail = await t.inbox.waitFor(email);
    const owner = t.client();
    const again = await owner.auth.signUp({
      email,
      password: 'owner-pass',
      options: { data: { name: 'Owner' } },
    });
    expect(again.error).toBeNull();
    expect(again.data.user?.identities).toHaveLength(1);
    expect(again.data.user?.user_metadata).toEqual({ name: 'Owner' });
    const ownersMail = await t.inbox.waitFor(email);
    expect((await followLink(strangersMail.links[0] as string)).params.get('error_code')).toBe('otp_expired');
    await followLink(ownersMail.links[0] as string);
    expect((await stranger.auth.signInWithPassword({ email, password: 'stranger-pass' })).error?.code).toBe(
      'invalid_credentials',
    );
    const signedIn = await owner.auth.signInWithPassword({ email, password: 'owner-pass' });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.user_metadata).toMatchObject({ name: 'Owner', email_verified: true });
  });

  it('resend() sends a fresh working link and answers {} for unknown addresses', async () => {
    const email = uniqueEmail('resend');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const first = await t.inbox.waitFor(email);
    expect((await sb.auth.resend({ type: 'signup', email })).error).toBeNull();
    const second = await t.inbox.waitFor(email);
    expect(second.links[0]).not.toBe(first.links[0]);
    // Only the newest link works.
    expect((await followLink(first.links[0] as string)).params.get('error_code')).toBe('otp_expired');
    expect((await followLink(second.links[0] as string)).params.get('access_token')).toBeTruthy();
    expect((await sb.auth.resend({ type: 'signup', email: uniqueEmail('nobody') })).error).toBeNull();
  });

  it('falls back to SITE_URL for a redirect_to that is not allowed', async () => {
    const email = uniqueEmail('redir');
    await t.client().auth.signUp({
      email,
      password: 'secret-pass',
      options: { emailRedirectTo: 'https://evil.example/steal' },
    });
    const mail = await t.inbox.waitFor(email);
    expect(new URL(mail.links[0] as string).searchParams.get('redirect_to')).toBe(t.config.SITE_URL);
    const { location } = await followLink(mail.links[0] as string);
    expect(location.origin).toBe(new URL(t.config.SITE_URL).origin);
  });
});

describe('password sign-in', () => {
  it('gives the same answer for an unknown email and a wrong password', async () => {
    const email = uniqueEmail('known');
    await signUpConfirmed(email);
    const a = await t.api('/token?grant_type=password', {
      method: 'POST',
      body: JSON.stringify({ email, password: 'wrong-one' }),
    });
    const b = await t.api('/token?grant_type=password', {
      method: 'POST',
      body: JSON.stringify({ email: uniqueEmail('unknown'), password: 'wrong-one' }),
    });
    expect(a.status).toBe(400);
    expect(b.status).toBe(400);
    expect(await a.json()).toEqual(await b.json());
  });

  it('issues ES256 access tokens with GoTrue claims, verifiable with the published JWKS', async () => {
    const email = uniqueEmail('jwt');
    const sb = await signUpConfirmed(email);
    const { data } = await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const session = data.session!;
    expect(session.expires_in).toBe(3600);
    const jwks = createRemoteJWKSet(new URL(`${t.url}/auth/v1/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(session.access_token, jwks);
    expect(protectedHeader).toEqual({
      alg: 'ES256',
      typ: 'JWT',
      kid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    // iat/exp come from the service's clock and JWT_EXPIRY, in seconds, and match the session JSON.
    expect(payload.exp).toBe(session.expires_at);
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(payload.iss).toBe(`${t.server.deps.config.SUPABASE_URL ?? t.server.deps.config.SITE_URL}/auth/v1`);
    expect(payload).toMatchObject({
      sub: session.user.id,
      email,
      role: 'authenticated',
      aud: 'authenticated',
      aal: 'aal1',
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] },
    });
    expect(payload.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((payload.amr as Array<{ method: string }>)[0]?.method).toBe('password');
    const claims = await sb.auth.getClaims();
    expect(claims.error).toBeNull();
    expect(claims.data?.claims.sub).toBe(session.user.id);
  });
});

describe('sessions and tokens', () => {
  it('rotates refresh tokens; the parent of the active token returns the active one', async () => {
    const email = uniqueEmail('rot');
    const sb = await signUpConfirmed(email);
    const { data } = await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const first = data.session!.refresh_token;
    const r1 = await sb.auth.refreshSession();
    expect(r1.error).toBeNull();
    const second = r1.data.session!.refresh_token;
    expect(second).not.toBe(first);
    // A client that never saved r1 replays `first`: it gets the active token, no fork.
    const replay = await t.api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: first }),
    });
    expect(replay.status).toBe(200);
    expect((await replay.json()).refresh_token).toBe(second);
  });

  it('revokes the session when an old token is replayed outside the reuse interval', async () => {
    const strict = await startTestServer({ REFRESH_TOKEN_REUSE_INTERVAL: '0', MAILER_AUTOCONFIRM: 'true' });
    try {
      const email = uniqueEmail('reuse');
      const sb = strict.client();
      const { data } = await sb.auth.signUp({ email, password: 'secret-pass' });
      const t0 = data.session!.refresh_token;
      const r1 = await sb.auth.refreshSession();
      const r2 = await sb.auth.refreshSession();
      expect(r2.error).toBeNull();
      await new Promise((r) => setTimeout(r, 1100));
      const res = await strict.api('/token?grant_type=refresh_token', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: t0 }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error_code ?? 'refresh_token_already_used').toBe(
        'refresh_token_already_used',
      );
      // The whole family is gone: the newest token and the access token stop working.
      const after = await strict.api('/token?grant_type=refresh_token', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: r2.data.session!.refresh_token }),
      });
      expect(after.status).toBe(400);
      expect(r1.data.session).toBeTruthy();
      const user = await sb.auth.getUser();
      expect(user.error?.name).toBe('AuthSessionMissingError');
    } finally {
      await strict.close();
    }
  });

  it('logout scopes: local ends this session, others the rest, global all; a revoked token is rejected', async () => {
    const email = uniqueEmail('logout');
    await signUpConfirmed(email);
    const clients = [t.client(), t.client(), t.client()];
    for (const c of clients)
      expect((await c.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
    const [a, b, c] = clients as [(typeof clients)[0], (typeof clients)[0], (typeof clients)[0]];
    const tokenB = (await b.auth.getSession()).data.session!.access_token;
    expect((await a.auth.signOut({ scope: 'others' })).error).toBeNull();
    expect((await a.auth.getUser()).error).toBeNull();
    const resB = await t.api('/user', { headers: { authorization: `Bearer ${tokenB}` } });
    expect(resB.status).toBe(403);
    expect((await resB.json()).error_code).toBe('session_not_found');
    expect((await c.auth.getUser()).error?.name).toBe('AuthSessionMissingError');
    expect((await a.auth.signOut({ scope: 'local' })).error).toBeNull();
    expect((await a.auth.getSession()).data.session).toBeNull();

    const d = t.client();
    await d.auth.signInWithPassword({ email, password: 'correct horse' });
    const tokenD = (await d.auth.getSession()).data.session!.access_token;
    expect((await d.auth.signOut()).error).toBeNull();
    expect((await t.api('/user', { headers: { authorization: `Bearer ${tokenD}` } })).status).toBe(403);
  });

  it('rejects missing, malformed, tampered and foreign tokens with GoTrue errors', async () => {
    const none = await t.api('/user');
    expect(none.status).toBe(401);
    expect((await none.json()).error_code).toBe('no_authorization');
    const garbage = await t.api('/user', { headers: { authorization: 'Bearer not.a.jwt' } });
    expect(garbage.status).toBe(403);
    expect((await garbage.json()).error_code).toBe('bad_jwt');
    const email = uniqueEmail('tamper');
    const sb = await signUpConfirmed(email);
    const { data } = await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const [h, p, s] = data.session!.access_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.role = 'service_role';
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const res = await t.api('/user', { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(403);
    const none2 = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    expect((await t.api('/user', { headers: { authorization: `Bearer ${none2}` } })).status).toBe(403);
  });

  it('expires access tokens after JWT_EXPIRY seconds', async () => {
    const short = await startTestServer({ JWT_EXPIRY: '1', MAILER_AUTOCONFIRM: 'true' });
    try {
      const { data } = await short
        .client()
        .auth.signUp({ email: uniqueEmail('exp'), password: 'secret-pass' });
      expect(data.session?.expires_in).toBe(1);
      await new Promise((r) => setTimeout(r, 2100));
      const res = await short.api('/user', {
        headers: { authorization: `Bearer ${data.session!.access_token}` },
      });
      expect(res.status).toBe(403);
      expect((await res.json()).error_code).toBe('bad_jwt');
    } finally {
      await short.close();
    }
  });
});

describe('user updates and recovery', () => {
  it('updates metadata (null deletes a key) and the password, ending the other sessions', async () => {
    const email = uniqueEmail('upd');
    const sb = await signUpConfirmed(email);
    await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const other = t.client();
    await other.auth.signInWithPassword({ email, password: 'correct horse' });
    const meta = await sb.auth.updateUser({ data: { plan: 'pro', theme: 'dark' } });
    expect(meta.data.user?.user_metadata).toMatchObject({ plan: 'pro', theme: 'dark' });
    const removed = await sb.auth.updateUser({ data: { theme: null } });
    expect(removed.data.user?.user_metadata.theme).toBeUndefined();
    expect((await sb.auth.updateUser({ password: 'correct horse' })).error?.code).toBe('same_password');
    expect((await sb.auth.updateUser({ password: '123' })).error?.code).toBe('weak_password');
    expect((await sb.auth.updateUser({ password: 'brand new pass' })).error).toBeNull();
    expect((await other.auth.getUser()).error?.name).toBe('AuthSessionMissingError');
    expect((await sb.auth.getUser()).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'brand new pass' })).error,
    ).toBeNull();
  });

  it('refuses an email already registered, then marks the change pending', async () => {
    const email = uniqueEmail('old');
    const next = uniqueEmail('new');
    const sb = await signUpConfirmed(email);
    await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const taken = uniqueEmail('taken');
    await signUpConfirmed(taken);
    expect((await sb.auth.updateUser({ email: taken })).error?.code).toBe('email_exists');
    const { data, error } = await sb.auth.updateUser({ email: next });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.new_email).toBe(next);
  });
});

describe('session limits (SESSIONS_TIMEBOX, SESSIONS_INACTIVITY_TIMEOUT)', () => {
  it('end a session by its age or its idleness: its refresh token then answers session_expired', async () => {
    const email = uniqueEmail('limits');
    await signUpConfirmed(email);
    const shift = (column: 'created_at' | 'refreshed_at', minutes: number) =>
      t.server.deps.db.execute(sql`update sessions set ${sql.raw(column)} = now() - make_interval(mins => ${minutes})
        where user_id = (select id from users where email = ${email})`);
    const refresh = async (sb: ReturnType<TestServer['client']>) => (await sb.auth.refreshSession()).error;
    try {
      t.config.SESSIONS_TIMEBOX = 3600;
      const boxed = t.client();
      await boxed.auth.signInWithPassword({ email, password: 'correct horse' });
      await shift('created_at', 50);
      expect(await refresh(boxed)).toBeNull(); // 50 min into a 60 min box
      await shift('created_at', 70);
      expect(await refresh(boxed)).toMatchObject({ status: 400, code: 'session_expired' });

      t.config.SESSIONS_TIMEBOX = 0;
      t.config.SESSIONS_INACTIVITY_TIMEOUT = 3600;
      const idle = t.client();
      await idle.auth.signInWithPassword({ email, password: 'correct horse' });
      await shift('refreshed_at', 50);
      expect(await refresh(idle)).toBeNull(); // 50 min idle of 60
      await shift('created_at', 600);
      expect(await refresh(idle)).toBeNull(); // without a timebox the session's age does not count
      await shift('refreshed_at', 70);
      expect(await refresh(idle)).toMatchObject({ status: 400, code: 'session_expired' });
    } finally {
      t.config.SESSIONS_TIMEBOX = 0;
      t.config.SESSIONS_INACTIVITY_TIMEOUT = 0;
    }
  });
});

describe('password change from a session over 24 h old (reauthentication)', () => {
  it('needs the nonce mailed by GET /reauthenticate, spent only by a change that succeeds', async () => {
    const email = uniqueEmail('reauth');
    const sb = await signUpConfirmed(email);
    expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
    // A fresh session changes the password without a nonce (as after a recovery link).
    expect((await sb.auth.updateUser({ password: 'second password' })).error).toBeNull();
    await t.server.deps.db.execute(sql`update sessions set created_at = now() - interval '25 hours'
      where user_id = (select id from users where email = ${email})`);
    expect((await sb.auth.updateUser({ password: 'third password' })).error).toMatchObject({
      status: 400,
      code: 'reauthentication_needed',
    });
    expect((await sb.auth.reauthenticate()).error).toBeNull();
    const mail = await t.inbox.waitFor(email, (m) => /confirmation code/.test(m.subject));
    expect(mail.links).toEqual([]); // a code only
    const nonce = mail.code as string;
    const wrong = nonce === '000000' ? '111111' : '000000';
    expect((await sb.auth.updateUser({ password: 'third password', nonce: wrong })).error).toMatchObject({
      status: 422,
      code: 'reauthentication_not_valid',
    });
    // A change refused for another reason leaves the nonce unspent...
    expect((await sb.auth.updateUser({ password: 'second password', nonce })).error?.code).toBe(
      'same_password',
    );
    expect((await sb.auth.updateUser({ password: 'third password', nonce })).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'third password' })).error,
    ).toBeNull();
    // ...and a successful one spends it.
    expect((await sb.auth.updateUser({ password: 'fourth password', nonce })).error?.code).toBe(
      'reauthentication_not_valid',
    );
    // SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION=false: GoTrue's default, no nonce asked.
    t.config.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION = false;
    try {
      expect((await sb.auth.updateUser({ password: 'fourth password' })).error).toBeNull();
    } finally {
      t.config.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION = true;
    }
  });
});

/** Signs up (confirmed), signs in and asks to move the account to a new address; returns both mails. */
async function startEmailChange(server: TestServer = t) {
  const email = uniqueEmail('chg-old');
  const next = uniqueEmail('chg-new');
  const sb = server.client();
  expect((await sb.auth.signUp({ email, password: 'correct horse' })).error).toBeNull();
  await fetch((await server.inbox.waitFor(email)).links[0] as string, { redirect: 'manual' });
  expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
  expect((await sb.auth.updateUser({ email: next })).error).toBeNull();
  return {
    sb,
    email,
    next,
    toNew: () => server.inbox.waitFor(next),
    toCurrent: () => server.inbox.waitFor(email),
  };
}

/** Which of the two addresses signs in with the password now. */
async function addressThatSignsIn(server: TestServer, email: string, next: string) {
  const old = await server.client().auth.signInWithPassword({ email, password: 'correct horse' });
  const neu = await server.client().auth.signInWithPassword({ email: next, password: 'correct horse' });
  if (!old.error && neu.error?.code === 'invalid_credentials') return 'current';
  if (!neu.error && old.error?.code === 'invalid_credentials') return 'new';
  throw new Error(`unexpected: ${old.error?.code} / ${neu.error?.code}`);
}

describe('secure email change (both addresses confirm)', () => {
  it('applies the change only after the links to both addresses are followed', async () => {
    const { sb, email, next, toNew, toCurrent } = await startEmailChange();
    const current = await toCurrent();
    expect(current.subject).toMatch(/change of your Namaa email/);
    expect(current.text).toContain(next); // the current owner sees where the account would move
    const toNext = await toNew();

    // First half: accepted, nothing changes, and nobody is signed in by the link.
    const first = await followLink(toNext.links[0] as string);
    expect(first.params.get('message')).toBe(
      'Confirmation link accepted. Please proceed to confirm link sent to the other email',
    );
    expect(first.params.get('access_token')).toBeNull();
    expect(await addressThatSignsIn(t, email, next)).toBe('current');
    expect((await sb.auth.getUser()).data.user).toMatchObject({ email, new_email: next });
    // Each link works once. (An implicit-flow link reports errors in the fragment only.)
    const reused = await followLink(toNext.links[0] as string);
    expect(reused.params.get('error_code')).toBe('otp_expired');
    expect(reused.location.searchParams.get('error_code')).toBeNull();

    // Second half: applied, and this link signs in as a normal email link does.
    const second = await followLink(current.links[0] as string);
    expect(second.params.get('type')).toBe('email_change');
    expect(second.params.get('access_token')).toBeTruthy();
    expect(await addressThatSignsIn(t, email, next)).toBe('new');
    const after = (await sb.auth.getUser()).data.user;
    expect(after?.email).toBe(next);
    expect(after?.new_email).toBeUndefined();
  });

  it('voids every link mailed to the old address once the change applies', async () => {
    const { email, toNew, toCurrent } = await startEmailChange();
    const current = await toCurrent();
    const toNext = await toNew();
    // A recovery link mailed to the old address before the change…
    expect((await t.client().auth.resetPasswordForEmail(email)).error).toBeNull();
    const recovery = await t.inbox.waitFor(email);
    await followLink(toNext.links[0] as string);
    expect((await followLink(current.links[0] as string)).params.get('access_token')).toBeTruthy();
    // …no longer signs anyone in: the old mailbox is not the account's any more.
    expect((await followLink(recovery.links[0] as string)).params.get('error_code')).toBe('otp_expired');
  });

  it('accepts the two 6-digit codes through verifyOtp, in either order', async () => {
    const { email, next, toNew, toCurrent } = await startEmailChange();
    const [current, toNext] = [await toCurrent(), await toNew()];
    const sb = t.client();
    // The code sent to the current address is bound to that address.
    const wrongAddress = await sb.auth.verifyOtp({
      email: next,
      token: current.code as string,
      type: 'email_change',
    });
    expect(wrongAddress.error?.code).toBe('otp_expired');
    const first = await sb.auth.verifyOtp({ email, token: current.code as string, type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data).toEqual({ user: null, session: null });
    expect(await addressThatSignsIn(t, email, next)).toBe('current');
    const second = await sb.auth.verifyOtp({
      email: next,
      token: toNext.code as string,
      type: 'email_change',
    });
    expect(second.error).toBeNull();
    expect(second.data.session?.user.email).toBe(next);
    expect(await addressThatSignsIn(t, email, next)).toBe('new');
  });

  it("answers GoTrue's {msg, code} body to the first half and a session to the second, even when both arrive at once", async () => {
    for (let round = 0; round < 3; round++) {
      const { email, next, toNew, toCurrent } = await startEmailChange();
      const hashes = [await toCurrent(), await toNew()].map(
        (m) => new URL(m.links[0] as string).searchParams.get('token') as string,
      );
      const answers = await Promise.all(
        hashes.map(async (token_hash) => {
          const res = await t.api('/verify', {
            method: 'POST',
            body: JSON.stringify({ type: 'email_change', token_hash }),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        }),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const halves = answers.filter((a) => a.body.msg !== undefined);
      const sessions = answers.filter((a) => a.body.access_token !== undefined);
      expect(halves.map((a) => a.body)).toEqual([
        {
          msg: 'Confirmation link accepted. Please proceed to confirm link sent to the other email',
          code: '200',
        },
      ]);
      expect(sessions).toHaveLength(1);
      expect(sessions[0]?.body.user).toMatchObject({ email: next });
      expect(await addressThatSignsIn(t, email, next)).toBe('new');
    }
  });

  it('a new password cancels the pending change and voids its links', async () => {
    const { sb, email, next, toNew, toCurrent } = await startEmailChange();
    const links = [(await toCurrent()).links[0] as string, (await toNew()).links[0] as string];
    expect((await sb.auth.updateUser({ password: 'a fresh password' })).error).toBeNull();
    for (const link of links) expect((await followLink(link)).params.get('error_code')).toBe('otp_expired');
    expect((await sb.auth.getUser()).data.user).toMatchObject({ email });
    expect((await sb.auth.getUser()).data.user?.new_email).toBeUndefined();
    expect(
      (await t.client().auth.signInWithPassword({ email: next, password: 'a fresh password' })).error?.code,
    ).toBe('invalid_credentials');
  });

  it('resend mails both links afresh and the change needs both again', async () => {
    const { sb, email, next, toNew, toCurrent } = await startEmailChange();
    const oldCurrent = await toCurrent();
    await toNew();
    expect((await followLink(oldCurrent.links[0] as string)).params.get('message')).toBeTruthy();
    expect((await sb.auth.resend({ type: 'email_change', email: next })).error).toBeNull();
    const [current, toNext] = [await toCurrent(), await toNew()];
    expect((await followLink(toNext.links[0] as string)).params.get('message')).toBeTruthy();
    expect(await addressThatSignsIn(t, email, next)).toBe('current');
    expect((await followLink(current.links[0] as string)).params.get('type')).toBe('email_change');
    expect(await addressThatSignsIn(t, email, next)).toBe('new');
  });

  it('with MAILER_SECURE_EMAIL_CHANGE_ENABLED=false the link to the new address alone applies it', async () => {
    const single = await startTestServer({ MAILER_SECURE_EMAIL_CHANGE_ENABLED: 'false' });
    try {
      const { email, next, toNew } = await startEmailChange(single);
      const mail = await toNew();
      expect(single.inbox.all().filter((m) => m.to === email && /change/i.test(m.subject))).toEqual([]);
      const { params } = await followLink(mail.links[0] as string);
      expect(params.get('type')).toBe('email_change');
      expect(await addressThatSignsIn(single, email, next)).toBe('new');
    } finally {
      await single.close();
    }
  });
});

describe('recovery', () => {
  it('recovers a password through the emailed link (and answers {} for unknown emails)', async () => {
    const email = uniqueEmail('recover');
    await signUpConfirmed(email);
    const sb = t.client();
    expect((await sb.auth.resetPasswordForEmail(uniqueEmail('ghost'))).error).toBeNull();
    const { error } = await sb.auth.resetPasswordForEmail(email, { redirectTo: `${t.url}/reset` });
    expect(error).toBeNull();
    const mail = await t.inbox.waitFor(email, (m) => /reset/i.test(m.subject));
    const { location, params } = await followLink(mail.links[0] as string);
    expect(location.pathname).toBe('/reset');
    expect(params.get('type')).toBe('recovery');
    const recovered = t.client();
    await recovered.auth.setSession({
      access_token: params.get('access_token') as string,
      refresh_token: params.get('refresh_token') as string,
    });
    expect((await recovered.auth.updateUser({ password: 'recovered pass' })).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'recovered pass' })).error,
    ).toBeNull();
    expect((await followLink(mail.links[0] as string)).params.get('error_code')).toBe('otp_expired');
  });
});

describe('auto-confirm mode', () => {
  it('returns a session at sign-up and 422 user_already_exists for a duplicate', async () => {
    const auto = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
    try {
      const email = uniqueEmail('auto');
      const first = await auto.client().auth.signUp({ email, password: 'secret-pass' });
      expect(first.error).toBeNull();
      expect(first.data.session?.access_token).toBeTruthy();
      expect(first.data.user?.email_confirmed_at).toBeTruthy();
      const dup = await auto.client().auth.signUp({ email: email.toUpperCase(), password: 'secret-pass' });
      expect(dup.error?.status).toBe(422);
      expect(dup.error?.code).toBe('user_already_exists');
      expect(dup.error?.message).toBe('User already registered');
    } finally {
      await auto.close();
    }
  });
});

describe('service endpoints', () => {
  it('serves health, settings, jwks and the OpenAPI document', async () => {
    const health = await fetch(`${t.url}/auth/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ name: 'GoTrue' });
    const settings = await t.api('/settings');
    expect(await settings.json()).toMatchObject({
      external: { email: true },
      mailer_autoconfirm: false,
      disable_signup: false,
    });
    const jwks = await fetch(`${t.url}/auth/v1/.well-known/jwks.json`);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=600');
    const { keys } = await jwks.json();
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', key_ops: ['verify'] });
    expect(keys[0].d).toBeUndefined();
    const doc = await (await fetch(`${t.url}/auth/v1/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/signup', '/token', '/verify', '/user', '/logout', '/recover', '/resend']),
    );
  });

  it('answers errors in the new shape with the version header echoed and exposed, legacy otherwise', async () => {
    const body = JSON.stringify({ email: uniqueEmail('x'), password: 'nope-nope' });
    const modern = await t.api('/token?grant_type=password', {
      method: 'POST',
      body,
      headers: { 'X-Supabase-Api-Version': '2024-01-01', origin: 'https://elsewhere.example' },
    });
    expect(modern.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(modern.headers.get('access-control-expose-headers')).toMatch(/X-Supabase-Api-Version/i);
    expect(await modern.json()).toEqual({
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
    const legacy = await t.api('/token?grant_type=password', { method: 'POST', body });
    expect(await legacy.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });
    const preflight = await fetch(`${t.url}/auth/v1/token`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'apikey,authorization,content-type,x-client-info,x-supabase-api-version',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/x-supabase-api-version/i);
  });

  it('stores outgoing mail in the development mailbox when SMTP_URL is unset', async () => {
    const dev = await startTestServer({ SMTP_URL: '' });
    try {
      const email = uniqueEmail('devbox');
      await dev.client().auth.signUp({ email, password: 'secret-pass' });
      await dev.server.deps.mail.idle();
      const list = await (await fetch(`${dev.url}/auth/v1/_dev/mailbox.json?to=${email}`)).json();
      expect(list).toHaveLength(1);
      expect(list[0].text).toContain('/auth/v1/verify?token=');
      const page = await fetch(`${dev.url}/auth/v1/_dev/mailbox`);
      expect(await page.text()).toContain(email);
    } finally {
      await dev.close();
    }
  });
});
