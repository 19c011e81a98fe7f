// Password sign-in and sessions through the official client: GoTrue's claims and the JWKS, refresh
// rotation and replay, logout scopes, bad tokens, JWT expiry, SESSIONS_TIMEBOX and
// SESSIONS_INACTIVITY_TIMEOUT.
import { sql } from 'drizzle-orm';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpConfirmed } from '../../support/email-links.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('password sign-in', () => {
  it('gives the same answer for an unknown email and a wrong password', async () => {
    const email = uniqueEmail('known');
    await signUpConfirmed(t, email);
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
    const sb = await signUpConfirmed(t, email);
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
    const sb = await signUpConfirmed(t, email);
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
    await signUpConfirmed(t, email);
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
    const sb = await signUpConfirmed(t, email);
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

describe('session limits (SESSIONS_TIMEBOX, SESSIONS_INACTIVITY_TIMEOUT)', () => {
  it('end a session by its age or its idleness: its refresh token then answers session_expired', async () => {
    const email = uniqueEmail('limits');
    await signUpConfirmed(t, email);
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
