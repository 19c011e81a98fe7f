// Social sign-in (issue #15) against a real OpenID Connect provider on loopback (oidc-provider),
// standing in for Google and for a generic issuer, through supabase-js: PKCE and implicit, first
// and second sign-in, linking by verified email (and refusing an unverified one), state replay and
// expiry, the provider's refusal, signInWithIdToken with good and bad ID tokens, manual linking,
// and the provider's own tokens (provider_token, provider_refresh_token) handed back to the client.
import {
  createClient,
  type Provider,
  type Session,
  type SupabaseClient,
  type SupportedStorage,
  type User,
} from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sessionSchema } from '../../../src/core/http/response-schemas.ts';
import { sha256 } from '../../../src/crypto/tokens.ts';
import { flowState } from '../../../src/db/schema.ts';
import {
  followSignIn,
  followToCallback,
  type IdentityProvider,
  startIdentityProvider,
} from '../../support/oidc-provider.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let idp: IdentityProvider;
let t: TestServer;
beforeAll(async () => {
  idp = await startIdentityProvider();
  t = await startTestServer({
    ...idp.env('GOOGLE'),
    ...idp.env('OIDC'),
    MAILER_AUTOCONFIRM: 'false',
    SECURITY_MANUAL_LINKING_ENABLED: 'true',
  });
  idp.allowRedirect(`${t.url}/auth/v1/callback`);
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

const client = (flowType: 'pkce' | 'implicit'): SupabaseClient =>
  createClient(t.url, t.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType },
  });

let n = 0;
function account(verified = true, email = uniqueEmail('social')) {
  const id = `acct-${++n}-${Date.now()}`;
  idp.accounts.set(id, { email, email_verified: verified, name: `Person ${n}` });
  return { id, email };
}

/** Asks the provider for a refresh token too (Google's way: offline access, consent asked again). */
const OFFLINE = { scopes: 'offline_access', queryParams: { prompt: 'consent' } } as const;

/** signInWithOAuth as a browser would go through it; returns where the site is sent. */
async function signIn(
  sb: SupabaseClient,
  loginHint: string,
  provider = 'google',
  extra: { scopes?: string; queryParams?: Record<string, string> } = {},
) {
  const { data, error } = await sb.auth.signInWithOAuth({
    provider: provider as Provider,
    options: {
      redirectTo: `${t.url}/welcome`,
      skipBrowserRedirect: true,
      ...(extra.scopes ? { scopes: extra.scopes } : {}),
      queryParams: { login_hint: loginHint, ...extra.queryParams },
    },
  });
  expect(error).toBeNull();
  return followSignIn(data.url as string, t.url);
}

async function pkceSignIn(loginHint: string, provider = 'google') {
  const sb = client('pkce');
  const landing = await signIn(sb, loginHint, provider);
  const code = landing.searchParams.get('code');
  expect(code, landing.href).toBeTruthy();
  const { data, error } = await sb.auth.exchangeCodeForSession(code as string);
  expect(error).toBeNull();
  return data as { user: User; session: Session };
}

const errorOf = (landing: URL) => {
  const q = landing.searchParams.get('error_code')
    ? landing.searchParams
    : new URLSearchParams(landing.hash.slice(1));
  return { error: q.get('error'), code: q.get('error_code'), description: q.get('error_description') };
};

describe('signInWithOAuth', () => {
  it('PKCE: the first sign-in creates the user and its identity, the second reuses it', async () => {
    const a = account();
    const first = await pkceSignIn(a.id);
    expect(first.user.email).toBe(a.email);
    expect(first.user.email_confirmed_at).toBeTruthy();
    expect(first.user.app_metadata).toMatchObject({ provider: 'google', providers: ['google'] });
    expect(first.user.identities).toHaveLength(1);
    expect(first.user.identities?.[0]).toMatchObject({
      provider: 'google',
      id: a.id,
      identity_data: { sub: a.id, email: a.email },
    });
    expect(first.user.user_metadata).toMatchObject({
      full_name: `Person ${a.id.split('-')[1]}`,
      email_verified: true,
    });
    expect(first.session.user.id).toBe(first.user.id);
    const second = await pkceSignIn(a.id);
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.identities).toHaveLength(1);
    // The access token says how the session began.
    const amr = JSON.parse(
      Buffer.from(second.session.access_token.split('.')[1] as string, 'base64url').toString(),
    ).amr;
    expect(amr[0].method).toBe('oauth');
  });

  it('implicit: the session arrives in the fragment and works', async () => {
    const a = account();
    const landing = await signIn(client('implicit'), a.id);
    expect(landing.origin + landing.pathname).toBe(`${t.url}/welcome`);
    const fragment = new URLSearchParams(landing.hash.slice(1));
    expect(fragment.get('token_type')).toBe('bearer');
    const sb = client('implicit');
    const { data, error } = await sb.auth.setSession({
      access_token: fragment.get('access_token') as string,
      refresh_token: fragment.get('refresh_token') as string,
    });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(a.email);
  });

  it('the generic OpenID provider is a provider of its own', async () => {
    const a = account();
    const viaGoogle = await pkceSignIn(a.id, 'google');
    const viaOidc = await pkceSignIn(a.id, 'oidc');
    // Same verified address, confirmed account: linked.
    expect(viaOidc.user.id).toBe(viaGoogle.user.id);
    expect(viaOidc.user.app_metadata.providers).toEqual(['google', 'oidc']);
  });

  it('links to an account whose email is verified on both sides', async () => {
    const email = uniqueEmail('social-link');
    const admin = await t.api('/signup', {
      method: 'POST',
      body: JSON.stringify({ email, password: 'Linking-Pass-4471' }),
    });
    expect(admin.status).toBe(200);
    const mail = await t.inbox.waitFor(email);
    await fetch(mail.links[0] as string, { redirect: 'manual' });
    const a = account(true, email);
    const { user } = await pkceSignIn(a.id);
    expect(user.email).toBe(email);
    expect(user.identities?.map((i) => i.provider).sort()).toEqual(['email', 'google']);
    expect(user.app_metadata).toMatchObject({ provider: 'email', providers: ['email', 'google'] });
    // The password still signs into the same account.
    const { data } = await client('pkce').auth.signInWithPassword({ email, password: 'Linking-Pass-4471' });
    expect(data.user?.id).toBe(user.id);
  });

  it('never links to an account whose email is unconfirmed, nor on an unverified provider address', async () => {
    const pendingEmail = uniqueEmail('social-pending');
    await t.api('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: pendingEmail, password: 'Pending-Pass-9921' }),
    });
    const a = account(true, pendingEmail);
    const landing = await signIn(client('pkce'), a.id);
    expect(landing.searchParams.get('code')).toBeNull();
    expect(errorOf(landing).code).toBe('email_exists');

    const confirmed = await pkceSignIn(account().id);
    const b = account(false, confirmed.user.email);
    const refused = await signIn(client('pkce'), b.id);
    expect(errorOf(refused).code).toBe('email_exists');
    // The confirmed account did not gain the unverified identity.
    const again = await pkceSignIn(confirmed.user.identities?.[0]?.id as string);
    expect(again.user.identities).toHaveLength(1);
  });

  it('a provider address that is not verified makes a new, unconfirmed user', async () => {
    const a = account(false);
    const { user } = await pkceSignIn(a.id);
    expect(user.email).toBe(a.email);
    expect(user.email_confirmed_at).toBeUndefined();
  });

  it("passes the provider's refusal on as error, error_code and error_description", async () => {
    const landing = await signIn(client('pkce'), 'refuse');
    expect(landing.pathname).toBe('/welcome');
    expect(errorOf(landing)).toEqual({
      error: 'access_denied',
      code: 'provider_error',
      description: 'The visitor declined to sign in',
    });
  });

  it('a state is single use, and expires', async () => {
    const a = account();
    const sb = client('pkce');
    const { data } = await sb.auth.signInWithOAuth({
      provider: 'google',
      options: {
        redirectTo: `${t.url}/welcome`,
        skipBrowserRedirect: true,
        queryParams: { login_hint: a.id },
      },
    });
    const callback = await followToCallback(data.url as string, t.url);
    const used = await fetch(callback, { redirect: 'manual' });
    expect(new URL(used.headers.get('location') as string).searchParams.get('code')).toBeTruthy();
    const replay = await fetch(callback, { redirect: 'manual' });
    expect(replay.status).toBe(302);
    expect(errorOf(new URL(replay.headers.get('location') as string)).code).toBe('bad_oauth_state');

    // Expiry: the clock moves past the state's lifetime while the visitor is at the provider.
    const { data: d2 } = await client('pkce').auth.signInWithOAuth({
      provider: 'google',
      options: {
        redirectTo: `${t.url}/welcome`,
        skipBrowserRedirect: true,
        queryParams: { login_hint: a.id },
      },
    });
    const lateCallback = await followToCallback(d2.url as string, t.url);
    const clock = t.server.deps.clock;
    t.server.deps.clock = () => new Date(Date.now() + 11 * 60_000);
    try {
      const late = await fetch(lateCallback, { redirect: 'manual' });
      expect(errorOf(new URL(late.headers.get('location') as string))).toMatchObject({
        code: 'bad_oauth_state',
        description: 'OAuth state has expired',
      });
    } finally {
      t.server.deps.clock = clock;
    }
    const forged = await fetch(`${t.url}/auth/v1/callback?state=forged&code=x`, { redirect: 'manual' });
    expect(errorOf(new URL(forged.headers.get('location') as string)).code).toBe('bad_oauth_state');
  });

  it('unknown and disabled providers answer validation_failed; skip_http_redirect answers {url}', async () => {
    const unknown = await fetch(`${t.url}/auth/v1/authorize?provider=myspace`, { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).msg).toBe('Unsupported provider: provider myspace could not be found');
    const off = await fetch(`${t.url}/auth/v1/authorize?provider=github`, { redirect: 'manual' });
    expect(off.status).toBe(400);
    expect((await off.json()).error_code).toBe('validation_failed');
    const json = await fetch(`${t.url}/auth/v1/authorize?provider=google&skip_http_redirect=true`);
    expect(json.status).toBe(200);
    expect(new URL((await json.json()).url).origin).toBe(idp.issuer);
    const badPkce = await fetch(
      `${t.url}/auth/v1/authorize?provider=google&code_challenge=short&code_challenge_method=s256`,
      {
        redirect: 'manual',
      },
    );
    expect(badPkce.status).toBe(400);
    const form = await fetch(`${t.url}/auth/v1/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(form.status).toBe(400);
    const big = await fetch(`${t.url}/auth/v1/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `state=${'a'.repeat(40_000)}`,
    });
    expect(big.status).toBe(413);
    const posted = await fetch(`${t.url}/auth/v1/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'state=nope&code=x',
      redirect: 'manual',
    });
    expect(posted.status).toBe(302);
    expect(errorOf(new URL(posted.headers.get('location') as string)).code).toBe('bad_oauth_state');
    const settings = await (await t.api('/settings')).json();
    expect(settings.external).toMatchObject({
      google: true,
      oidc: true,
      apple: false,
      github: false,
      x: false,
      azure: false,
    });
  });
});

describe('hostile input', () => {
  it("answers clear 4xx in GoTrue's shape, never a 500", async () => {
    const cases: [string, RequestInit | undefined, number][] = [
      [`/authorize?provider=${'g'.repeat(3000)}`, undefined, 400],
      ['/authorize?provider=google&redirect_to=javascript:alert(1)&skip_http_redirect=true', undefined, 200],
      [
        `/authorize?provider=google&code_challenge_method=md5&code_challenge=${'a'.repeat(43)}`,
        undefined,
        400,
      ],
      [`/callback?state=${'s'.repeat(3000)}`, undefined, 400],
      ['/callback?state=%00%ff&code=%00', undefined, 302],
      [
        '/token?grant_type=id_token',
        { method: 'POST', body: JSON.stringify({ provider: 'google', id_token: 42 }) },
        400,
      ],
      [
        '/token?grant_type=id_token',
        { method: 'POST', body: JSON.stringify({ provider: 'google', id_token: 'x'.repeat(30_000) }) },
        400,
      ],
      [
        '/token?grant_type=id_token',
        { method: 'POST', body: JSON.stringify({ provider: 'google', id_token: 'a.b.c', nonce: ['x'] }) },
        400,
      ],
      ['/token?grant_type=id_token', { method: 'POST', body: JSON.stringify({ provider: 'google' }) }, 400],
    ];
    for (const [path, init, status] of cases) {
      const res = await t.api(path, { redirect: 'manual', ...init });
      expect(res.status, path.slice(0, 80)).toBe(status);
      if (status === 400) {
        const body = await res.json();
        expect(body.error_code ?? body.error, path.slice(0, 80)).toBeTruthy();
      }
      if (status === 200) {
        // A redirect_to that is not allowed falls back to SITE_URL (stored with the state), never used as is.
        expect((await res.json()).url).toContain(idp.issuer);
      }
    }
  });
});

describe('signInWithIdToken', () => {
  it('signs in with a valid Google ID token and checks the nonce', async () => {
    const a = account();
    const nonce = 'raw-nonce-1234';
    const hashed = Buffer.from(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(nonce)),
    ).toString('hex');
    const token = await idp.signIdToken({ sub: a.id, email: a.email, email_verified: true, nonce: hashed });
    const { data, error } = await client('pkce').auth.signInWithIdToken({ provider: 'google', token, nonce });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(a.email);
    const again = await client('pkce').auth.signInWithIdToken({
      provider: 'google',
      token,
      nonce: 'another',
    });
    expect(again.error?.message).toBe('Nonces mismatch');
    const missing = await client('pkce').auth.signInWithIdToken({ provider: 'google', token });
    expect(missing.error?.message).toBe("'nonce' in request body missing");
  });

  it('refuses tampered, expired, wrong-audience and foreign-key ID tokens', async () => {
    const a = account();
    const good = await idp.signIdToken({ sub: a.id, email: a.email, email_verified: true });
    const [h, p, s] = good.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${s}`;
    const expired = await idp.signIdToken({ sub: a.id }, { expiresIn: Math.floor(Date.now() / 1000) - 3600 });
    const wrongAudience = await (async () => {
      const other = await idp.signIdToken({ sub: a.id, aud: 'someone-elses-app' });
      return other;
    })();
    for (const token of [tampered, expired, wrongAudience, 'not.a.jwt']) {
      const { error } = await client('pkce').auth.signInWithIdToken({ provider: 'google', token });
      expect(error?.status, token.slice(0, 20)).toBe(400);
      expect(error?.message).toBe('Bad ID token');
    }
    // A provider that is off answers as GoTrue does.
    const off = await client('pkce').auth.signInWithIdToken({ provider: 'apple', token: good });
    expect(off.error?.status).toBe(400);
  });
});

describe('linkIdentity / unlinkIdentity', () => {
  it('links a second provider to the signed-in user, then unlinks it, never the last', async () => {
    const a = account();
    const sb = client('pkce');
    const first = await pkceSignIn(a.id, 'google');
    await sb.auth.setSession({
      access_token: first.session.access_token,
      refresh_token: first.session.refresh_token,
    });
    const other = account(true, uniqueEmail('social-second'));
    const { data, error } = await sb.auth.linkIdentity({
      provider: 'oidc' as Provider,
      options: {
        redirectTo: `${t.url}/linked`,
        skipBrowserRedirect: true,
        queryParams: { login_hint: other.id },
      },
    });
    expect(error).toBeNull();
    const landing = await followSignIn(data.url as string, t.url);
    const code = landing.searchParams.get('code') as string;
    const exchanged = await sb.auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    const linked = exchanged as { data: { user: User; session: Session } };
    expect(linked.data.user.id).toBe(first.user.id);
    // As GoTrue: the linked provider's own token comes with the session (no refresh token asked for).
    const linkedToken = linked.data.session.provider_token as string;
    expect((await idp.userInfo(linkedToken)).body.sub).toBe(other.id);
    expect(linked.data.session).not.toHaveProperty('provider_refresh_token');
    expect(linked.data.user.identities?.map((i) => i.provider).sort()).toEqual(['google', 'oidc']);
    const oidcIdentity = linked.data.user.identities?.find((i) => i.provider === 'oidc');
    expect((await sb.auth.unlinkIdentity(oidcIdentity as never)).error).toBeNull();
    const { data: after } = await sb.auth.getUser();
    expect(after.user?.identities?.map((i) => i.provider)).toEqual(['google']);
    const last = after.user?.identities?.[0];
    const refused = await sb.auth.unlinkIdentity(last as never);
    expect(refused.error?.code).toBe('single_identity_not_deletable');
    // Someone else's identity is not found.
    const stranger = await pkceSignIn(account().id);
    const res = await t.api(`/user/identities/${stranger.user.identities?.[0]?.identity_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${linked.data.session.access_token}` },
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error_code).toBe('identity_not_found');
  });

  it('an identity already linked to another user cannot be linked again', async () => {
    const taken = account();
    await pkceSignIn(taken.id, 'oidc');
    const me = await pkceSignIn(account().id, 'google');
    const sb = client('pkce');
    await sb.auth.setSession({
      access_token: me.session.access_token,
      refresh_token: me.session.refresh_token,
    });
    const { data } = await sb.auth.linkIdentity({
      provider: 'oidc' as Provider,
      options: {
        redirectTo: `${t.url}/linked`,
        skipBrowserRedirect: true,
        queryParams: { login_hint: taken.id },
      },
    });
    const landing = await followSignIn(data.url as string, t.url);
    expect(errorOf(landing).code).toBe('identity_already_exists');
  });
});

describe('manual linking switched off', () => {
  it('answers 404 manual_linking_disabled to linkIdentity and unlinkIdentity', async () => {
    const me = await pkceSignIn(account().id);
    const auth = { authorization: `Bearer ${me.session.access_token}` };
    t.server.deps.config.social.manualLinking = false;
    try {
      const link = await t.api('/user/identities/authorize?provider=oidc&skip_http_redirect=true', {
        headers: auth,
      });
      expect(link.status).toBe(404);
      expect((await link.json()).msg).toBe('Manual linking is disabled');
      const unlink = await t.api(`/user/identities/${me.user.identities?.[0]?.identity_id}`, {
        method: 'DELETE',
        headers: auth,
      });
      expect(unlink.status).toBe(404);
      expect((await unlink.json()).error_code).toBe('manual_linking_disabled');
    } finally {
      t.server.deps.config.social.manualLinking = true;
    }
  });
});

/** A supabase-js client whose storage the test can read (the PKCE verifier). */
function clientWithStorage(store: Map<string, string>): SupabaseClient {
  const storage: SupportedStorage = {
    getItem: (key) => store.get(key) ?? null,
    setItem: (key, value) => {
      store.set(key, value);
    },
    removeItem: (key) => {
      store.delete(key);
    },
  };
  return createClient(t.url, t.anonKey, {
    auth: {
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      flowType: 'pkce',
      storage,
    },
  });
}

/**
 * supabase-js on the page the implicit flow lands on: a client made in a "browser" at that URL reads
 * the session from the fragment itself (auth-js `_getSessionFromURL`, detectSessionInUrl).
 */
async function sessionFromUrl(landing: URL): Promise<Session | null> {
  const location = { href: landing.href, hash: landing.hash };
  vi.stubGlobal('window', { location, history: { state: null, replaceState: () => undefined } });
  vi.stubGlobal('document', {});
  try {
    const sb = createClient(t.url, t.anonKey, {
      auth: {
        persistSession: false,
        autoRefreshToken: false,
        detectSessionInUrl: true,
        flowType: 'implicit',
        lock: async (_name, _timeout, fn) => fn(),
      },
    });
    const { error } = await sb.auth.initialize();
    expect(error).toBeNull();
    // auth-js clears the fragment once it has the session.
    expect(location.hash).toBe('');
    return (await sb.auth.getSession()).data.session;
  } finally {
    vi.unstubAllGlobals();
  }
}

describe("the provider's own tokens", () => {
  it('implicit: the fragment carries provider_token, and provider_refresh_token only when issued', async () => {
    const a = account();
    const landing = await signIn(client('implicit'), a.id);
    const fragment = new URLSearchParams(landing.hash.slice(1));
    // GoTrue's fragment: keys sorted, the empty `sb` marker; no refresh token was asked for.
    expect([...fragment.keys()]).toEqual([
      'access_token',
      'expires_at',
      'expires_in',
      'provider_token',
      'refresh_token',
      'sb',
      'token_type',
    ]);
    expect(landing.hash).not.toContain('provider_refresh_token');
    const session = await sessionFromUrl(landing);
    expect(session?.user.email).toBe(a.email);
    expect(session?.provider_token).toBe(fragment.get('provider_token'));
    expect(session?.provider_refresh_token).toBeUndefined();
    // The provider's real access token: its userinfo endpoint answers for this account.
    expect(await idp.userInfo(session?.provider_token as string)).toMatchObject({
      status: 200,
      body: { sub: a.id, email: a.email },
    });

    const b = account();
    const offline = await signIn(client('implicit'), b.id, 'google', OFFLINE);
    const keys = [...new URLSearchParams(offline.hash.slice(1)).keys()];
    expect(keys).toEqual([
      'access_token',
      'expires_at',
      'expires_in',
      'provider_refresh_token',
      'provider_token',
      'refresh_token',
      'sb',
      'token_type',
    ]);
    const withRefresh = await sessionFromUrl(offline);
    expect((await idp.userInfo(withRefresh?.provider_token as string)).body.sub).toBe(b.id);
    // The provider's real refresh token: its token endpoint gives a new access token for it.
    const refreshed = await idp.refresh(withRefresh?.provider_refresh_token as string);
    expect(refreshed.status).toBe(200);
    expect((await idp.userInfo(refreshed.body.access_token as string)).body.sub).toBe(b.id);
  });

  it('PKCE: the code exchange returns them once; they wait sealed, never in plain text', async () => {
    const a = account();
    const store = new Map<string, string>();
    const sb = clientWithStorage(store);
    const landing = await signIn(sb, a.id, 'google', OFFLINE);
    const code = landing.searchParams.get('code') as string;
    expect(code).toBeTruthy();
    expect(landing.hash).toBe('');
    // The client's storage as it is before the exchange (the verifier in it), for a second try.
    const before = new Map(store);

    const [row] = await t.server.deps.db
      .select()
      .from(flowState)
      .where(eq(flowState.authCodeHash, sha256(code)));
    expect(row?.providerTokens).toMatch(/^v1\./);

    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    // The answer as the OpenAPI document declares it (a strict object: nothing undeclared).
    expect(sessionSchema.safeParse(data.session).error).toBeUndefined();
    const token = data.session?.provider_token as string;
    const refresh = data.session?.provider_refresh_token as string;
    expect(row?.providerTokens).not.toContain(token);
    expect(row?.providerTokens).not.toContain(refresh);
    expect((await idp.userInfo(token)).body).toMatchObject({ sub: a.id, email: a.email });
    const refreshed = await idp.refresh(refresh);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toEqual(expect.any(String));

    // Used once: the same code with the same verifier (a second client holding it) is refused.
    const second = await clientWithStorage(before).auth.exchangeCodeForSession(code);
    expect(second.error?.status).toBe(404);
    expect(second.error?.code).toBe('flow_state_not_found');
    expect(second.data.session).toBeNull();

    // Without offline access: provider_token only, no provider_refresh_token key at all.
    const b = account();
    const plain = await pkceSignIn(b.id);
    expect((await idp.userInfo(plain.session.provider_token as string)).body.sub).toBe(b.id);
    expect(plain.session).not.toHaveProperty('provider_refresh_token');
  });

  it('an email-link PKCE exchange carries no provider token', async () => {
    const email = uniqueEmail('social-none');
    const store = new Map<string, string>();
    const sb = clientWithStorage(store);
    const { error } = await sb.auth.signUp({
      email,
      password: 'No-Provider-Token-5521',
      options: { emailRedirectTo: `${t.url}/welcome` },
    });
    expect(error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    const verified = await fetch(mail.links[0] as string, { redirect: 'manual' });
    const code = new URL(verified.headers.get('location') as string).searchParams.get('code') as string;
    const { data } = await sb.auth.exchangeCodeForSession(code);
    expect(data.session?.user.email).toBe(email);
    expect(data.session).not.toHaveProperty('provider_token');
    expect(data.session).not.toHaveProperty('provider_refresh_token');
  });
});
