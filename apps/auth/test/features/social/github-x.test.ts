// Social sign-in with GitHub and X (issue #15): the real service through supabase-js against local
// stand-ins for GitHub Enterprise (EXTERNAL_GITHUB_URL) and for X (EXTERNAL_X_URL), on loopback
// because this machine has no internet. Only the third party is faked, and the fakes refuse what the
// real one refuses (client authentication, the code, redirect_uri, PKCE, the Bearer token, GitHub's
// JSON Accept), recording each request so the tests can also assert what was sent.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createClient,
  type Provider,
  type Session,
  type SupabaseClient,
  type User,
} from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { followSignIn } from '../../support/oidc-provider.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

type Recorded = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
};
type Answer = { status: number; body: unknown };
type GithubAccount = {
  user: { id: number; login: string; name: string | null; avatar_url: string; email: string | null };
  emails: { email: string; primary: boolean; verified: boolean; visibility: string | null }[];
};
type XAccount = { id: string; name: string; username: string; profile_image_url: string };

type FakeProvider<A> = {
  url: string;
  clientId: string;
  clientSecret: string;
  /** The service's callback, known once the service listens. */
  redirectUri: string;
  /** The account the next visitor at the authorization page signs in as. */
  next: A | undefined;
  /** Instead of the real answer: the token endpoint's (once), the profile API's (per path, until removed). */
  tokenAnswer: Answer | undefined;
  apiAnswers: Map<string, Answer>;
  requests: Recorded[];
  /** The access tokens handed out, newest last. */
  issued: string[];
  close(): Promise<void>;
};

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};
/**
 * The client id and secret of an HTTP Basic header, each form-urlencoded inside it as RFC 6749
 * §2.3.1 says (openid-client encodes even `-` as `%2D`; a compliant server decodes).
 */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!m) return undefined;
  const [id, secret, ...rest] = Buffer.from(m[1] as string, 'base64')
    .toString('utf8')
    .split(':');
  if (id === undefined || secret === undefined || rest.length > 0) return undefined;
  const decode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
  return { id: decode(id), secret: decode(secret) };
}
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * GitHub's or X's OAuth 2.0 server and profile API as far as the service uses them. GitHub:
 * `/login/oauth/authorize`, `/login/oauth/access_token` (client id and secret in the form body, JSON
 * only when asked with `Accept: application/json`, and its errors as 200 with an `error` field, as
 * GitHub answers), `/api/v3/user` and `/api/v3/user/emails`. X: `/i/oauth2/authorize`,
 * `/2/oauth2/token` (HTTP Basic client authentication, PKCE required) and `/2/users/me`.
 */
async function startFakeProvider<A extends GithubAccount | XAccount>(
  kind: 'github' | 'x',
): Promise<FakeProvider<A>> {
  const codes = new Map<
    string,
    { account: A; redirectUri: string; challenge: string | null; used: boolean }
  >();
  const tokens = new Map<string, A>();
  const paths =
    kind === 'github'
      ? { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token' }
      : { authorize: '/i/oauth2/authorize', token: '/2/oauth2/token' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://fake');
      const r: Recorded = {
        method: req.method ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      fake.requests.push(r);
      if (u.pathname === paths.authorize) return authorize(r, res);
      if (u.pathname === paths.token) return token(r, res);
      return api(r, res);
    });
  });

  function authorize(r: Recorded, res: ServerResponse) {
    const q = r.query;
    const challenge = q.get('code_challenge');
    // Both show an error page (no redirect) for a client or callback they do not know.
    const bad =
      r.method !== 'GET' ||
      q.get('client_id') !== fake.clientId ||
      q.get('redirect_uri') !== fake.redirectUri ||
      q.get('response_type') !== 'code' ||
      !q.get('state') ||
      (challenge !== null && q.get('code_challenge_method') !== 'S256') ||
      (kind === 'x' && challenge === null) ||
      !fake.next;
    if (bad) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('bad authorization request');
      return;
    }
    const code = randomBytes(10).toString('hex');
    codes.set(code, { account: fake.next as A, redirectUri: fake.redirectUri, challenge, used: false });
    const back = new URL(fake.redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') as string);
    res.writeHead(302, { location: back.href });
    res.end();
  }

  function token(r: Recorded, res: ServerResponse) {
    const refuse = (status: number, error: string) =>
      // GitHub answers its token errors with 200 and an `error` field.
      json(res, kind === 'github' ? 200 : status, { error, error_description: `fake ${kind}: ${error}` });
    if (r.method !== 'POST') return refuse(404, 'not_found');
    if (!String(r.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return refuse(400, 'invalid_request');
    const form = new URLSearchParams(r.body);
    if (kind === 'github') {
      if (form.get('client_id') !== fake.clientId || form.get('client_secret') !== fake.clientSecret)
        return refuse(200, 'incorrect_client_credentials');
    } else {
      const basic = basicCredentials(r.headers.authorization);
      if (basic?.id !== fake.clientId || basic.secret !== fake.clientSecret)
        return refuse(401, 'unauthorized_client');
    }
    if (fake.tokenAnswer) {
      const a = fake.tokenAnswer;
      fake.tokenAnswer = undefined;
      return json(res, a.status, a.body);
    }
    const grant = codes.get(form.get('code') ?? '');
    if (form.get('grant_type') !== 'authorization_code' || !grant || grant.used)
      return refuse(400, kind === 'github' ? 'bad_verification_code' : 'invalid_request');
    if (form.get('redirect_uri') !== grant.redirectUri) return refuse(400, 'redirect_uri_mismatch');
    if (grant.challenge !== null && s256(form.get('code_verifier') ?? '') !== grant.challenge)
      return refuse(400, 'invalid_grant');
    grant.used = true;
    const accessToken = `${kind === 'github' ? 'gho_' : 'x-'}${randomBytes(16).toString('hex')}`;
    tokens.set(accessToken, grant.account);
    fake.issued.push(accessToken);
    const body =
      kind === 'github'
        ? { access_token: accessToken, token_type: 'bearer', scope: 'read:user,user:email' }
        : {
            access_token: accessToken,
            token_type: 'bearer',
            expires_in: 7200,
            scope: 'users.read tweet.read',
          };
    // Without `Accept: application/json`, GitHub answers in form encoding, which no JSON client reads.
    if (kind === 'github' && !String(r.headers.accept).includes('application/json')) {
      res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
      res.end(
        new URLSearchParams(
          Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]),
        ).toString(),
      );
      return;
    }
    json(res, 200, body);
  }

  function api(r: Recorded, res: ServerResponse) {
    const bearer = /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1];
    const account = bearer ? tokens.get(bearer) : undefined;
    if (r.method !== 'GET' || !account) return json(res, 401, { message: 'Requires authentication' });
    const instead = fake.apiAnswers.get(r.path);
    if (instead) return json(res, instead.status, instead.body);
    if (kind === 'github') {
      const a = account as GithubAccount;
      if (r.path === '/api/v3/user') return json(res, 200, a.user);
      if (r.path === '/api/v3/user/emails') return json(res, 200, a.emails);
    } else if (r.path === '/2/users/me') {
      // X answers only the fields asked for beyond id, name and username.
      const { profile_image_url, ...base } = account as XAccount;
      const fields = (r.query.get('user.fields') ?? '').split(',');
      return json(res, 200, {
        data: fields.includes('profile_image_url') ? { ...base, profile_image_url } : base,
      });
    }
    json(res, 404, { message: 'Not Found' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeProvider<A> = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId: `${kind}-client-id`,
    clientSecret: `${kind}-client-secret-${randomBytes(8).toString('hex')}`,
    redirectUri: '',
    next: undefined,
    tokenAnswer: undefined,
    apiAnswers: new Map(),
    requests: [],
    issued: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

let github: FakeProvider<GithubAccount>;
let x: FakeProvider<XAccount>;
let t: TestServer;
beforeAll(async () => {
  github = await startFakeProvider<GithubAccount>('github');
  x = await startFakeProvider<XAccount>('x');
  t = await startTestServer({
    EXTERNAL_GITHUB_ENABLED: 'true',
    EXTERNAL_GITHUB_CLIENT_ID: github.clientId,
    EXTERNAL_GITHUB_SECRET: github.clientSecret,
    EXTERNAL_GITHUB_URL: github.url,
    EXTERNAL_X_ENABLED: 'true',
    EXTERNAL_X_CLIENT_ID: x.clientId,
    EXTERNAL_X_SECRET: x.clientSecret,
    EXTERNAL_X_URL: x.url,
    MAILER_AUTOCONFIRM: 'false',
  });
  github.redirectUri = `${t.url}/auth/v1/callback`;
  x.redirectUri = `${t.url}/auth/v1/callback`;
});
afterAll(async () => {
  await t?.close();
  await github?.close();
  await x?.close();
});

const client = (flowType: 'pkce' | 'implicit'): SupabaseClient =>
  createClient(t.url, t.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType },
  });

let n = 0;
function githubAccount(primaryVerified = true) {
  const id = 7_000_000 + ++n;
  const login = `octo-${n}-${randomBytes(3).toString('hex')}`;
  const primary = uniqueEmail('gh-primary');
  const account: GithubAccount = {
    user: {
      id,
      login,
      name: `Octo Cat ${n}`,
      avatar_url: `https://avatars.example/u/${id}`,
      // The public profile address: not the one to use (unverified as far as the API says).
      email: uniqueEmail('gh-public'),
    },
    // Listed first on purpose: a verified and an unverified address that are not the primary one.
    emails: [
      { email: uniqueEmail('gh-old'), primary: false, verified: false, visibility: null },
      { email: uniqueEmail('gh-work'), primary: false, verified: true, visibility: null },
      { email: primary, primary: true, verified: primaryVerified, visibility: 'private' },
    ],
  };
  return { account, id, login, email: primary };
}

function xAccount(): XAccount {
  const id = `14${Date.now()}${++n}`;
  return {
    id,
    name: `X Person ${n}`,
    username: `xperson_${n}`,
    profile_image_url: `https://pbs.example/profile_images/${id}/normal.jpg`,
  };
}

/** signInWithOAuth as a browser goes through it; returns where the site is sent. */
async function signIn(sb: SupabaseClient, provider: 'github' | 'x') {
  const { data, error } = await sb.auth.signInWithOAuth({
    provider: provider as Provider,
    options: { redirectTo: `${t.url}/welcome`, skipBrowserRedirect: true },
  });
  expect(error).toBeNull();
  return followSignIn(data.url as string, t.url);
}

async function pkceSignIn(provider: 'github' | 'x') {
  const sb = client('pkce');
  const landing = await signIn(sb, provider);
  const code = landing.searchParams.get('code');
  expect(code, landing.href).toBeTruthy();
  const { data, error } = await sb.auth.exchangeCodeForSession(code as string);
  expect(error).toBeNull();
  return data as { user: User; session: Session };
}

const errorOf = (landing: URL) => ({
  error: landing.searchParams.get('error'),
  code: landing.searchParams.get('error_code'),
  description: landing.searchParams.get('error_description'),
});

/** The requests the fake got from one sign-in on: authorize, token, then the profile API. */
function requestsSince(fake: { requests: Recorded[] }, from: number) {
  const got = fake.requests.slice(from);
  return {
    authorize: got.find((r) => r.path.endsWith('/authorize')),
    token: got.find((r) => r.method === 'POST'),
    api: got.filter((r) => r.method === 'GET' && !r.path.endsWith('/authorize')),
  };
}

describe('GitHub (Enterprise URL)', () => {
  it('PKCE: the first sign-in creates the user from the primary verified address, the second reuses it', async () => {
    const a = githubAccount();
    github.next = a.account;
    const from = github.requests.length;
    const first = await pkceSignIn('github');

    const { authorize, token, api } = requestsSince(github, from);
    expect(authorize?.query.get('scope')).toBe('read:user user:email');
    const challenge = authorize?.query.get('code_challenge');
    expect(token?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(token?.headers.accept).toContain('application/json');
    const form = new URLSearchParams(token?.body);
    // Client authentication in the body (client_secret_post), as GitHub documents it.
    expect(form.get('client_id')).toBe(github.clientId);
    expect(form.get('client_secret')).toBe(github.clientSecret);
    expect(token?.headers.authorization).toBeUndefined();
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('redirect_uri')).toBe(`${t.url}/auth/v1/callback`);
    expect(s256(form.get('code_verifier') ?? '')).toBe(challenge);
    const accessToken = github.issued.at(-1);
    expect(api.map((r) => r.path)).toEqual(['/api/v3/user', '/api/v3/user/emails']);
    for (const r of api) expect(r.headers.authorization).toBe(`Bearer ${accessToken}`);

    expect(first.user.email).toBe(a.email);
    expect(first.user.email_confirmed_at).toBeTruthy();
    expect(first.user.app_metadata).toMatchObject({ provider: 'github', providers: ['github'] });
    expect(first.user.identities).toHaveLength(1);
    const identity = first.user.identities?.[0];
    expect(identity).toMatchObject({ provider: 'github', id: String(a.id), email: a.email });
    expect(identity?.identity_data).toMatchObject({
      iss: `${github.url}/api/v3`,
      sub: String(a.id),
      provider_id: String(a.id),
      user_name: a.login,
      preferred_username: a.login,
      name: a.account.user.name,
      full_name: a.account.user.name,
      avatar_url: a.account.user.avatar_url,
      picture: a.account.user.avatar_url,
      email: a.email,
      email_verified: true,
    });
    expect(first.user.user_metadata).toMatchObject({ user_name: a.login, email: a.email });
    // GitHub's own access token, for the app to call GitHub's API as the user.
    expect(first.session.provider_token).toBe(accessToken);
    expect(first.session).not.toHaveProperty('provider_refresh_token');

    const second = await pkceSignIn('github');
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.identities).toHaveLength(1);
    expect(second.session.provider_token).toBe(github.issued.at(-1));
    expect(second.session.provider_token).not.toBe(accessToken);
  });

  it('implicit: the session and provider_token arrive in the fragment', async () => {
    const a = githubAccount();
    github.next = a.account;
    const landing = await signIn(client('implicit'), 'github');
    expect(landing.origin + landing.pathname).toBe(`${t.url}/welcome`);
    const fragment = new URLSearchParams(landing.hash.slice(1));
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('provider_token')).toBe(github.issued.at(-1));
    expect(fragment.has('provider_refresh_token')).toBe(false);
    const { data, error } = await client('implicit').auth.setSession({
      access_token: fragment.get('access_token') as string,
      refresh_token: fragment.get('refresh_token') as string,
    });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(a.email);
    expect(data.user?.identities?.[0]?.provider).toBe('github');
  });

  it('a primary address GitHub has not verified: a new user, its email unconfirmed, signed in', async () => {
    // GoTrue picks the primary address too (models.DetermineAccountLinking), verified or not. It then
    // refuses the sign-in (access_denied, provider_email_needs_verification) and mails a confirmation
    // unless GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS; this service signs in the unconfirmed user,
    // as for any provider (social.test.ts), which is GoTrue's behaviour with that setting on.
    const a = githubAccount(false);
    github.next = a.account;
    const { user, session } = await pkceSignIn('github');
    expect(user.email).toBe(a.email);
    expect(user.email_confirmed_at).toBeUndefined();
    expect(user.identities?.[0]?.identity_data).toMatchObject({ email: a.email, email_verified: false });
    expect(session.provider_token).toBe(github.issued.at(-1));
  });

  it("the token endpoint's refusal: back to the site with error, error_code and error_description", async () => {
    github.next = githubAccount().account;
    github.tokenAnswer = {
      status: 200,
      body: { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' },
    };
    const from = github.requests.length;
    const landing = await signIn(client('pkce'), 'github');
    expect(landing.origin + landing.pathname).toBe(`${t.url}/welcome`);
    expect(landing.searchParams.get('code')).toBeNull();
    const e = errorOf(landing);
    expect(e).toMatchObject({ error: 'server_error', code: 'bad_oauth_callback' });
    expect(e.description).toMatch(/^Unable to exchange external code/);
    // The same in the fragment (GoTrue's redirect carries both under PKCE).
    expect(new URLSearchParams(landing.hash.slice(1)).get('error_code')).toBe('bad_oauth_callback');
    expect(requestsSince(github, from).api).toEqual([]);
  });

  it('the profile API answering 500: a clean error redirect, never a 500 page', async () => {
    for (const path of ['/api/v3/user', '/api/v3/user/emails']) {
      github.next = githubAccount().account;
      github.apiAnswers.set(path, { status: 500, body: { message: 'Server Error' } });
      try {
        const from = github.requests.length;
        const landing = await signIn(client('pkce'), 'github');
        expect(landing.origin + landing.pathname, path).toBe(`${t.url}/welcome`);
        expect(landing.searchParams.get('code'), path).toBeNull();
        expect(errorOf(landing), path).toEqual({
          error: 'server_error',
          code: 'bad_oauth_callback',
          description: 'Error getting user profile from external provider',
        });
        expect(
          requestsSince(github, from)
            .api.map((r) => r.path)
            .at(-1),
        ).toBe(path);
      } finally {
        github.apiAnswers.delete(path);
      }
    }
  });
});

describe('X (EXTERNAL_X_URL)', () => {
  it('PKCE: HTTP Basic client authentication, S256, the Bearer profile call; the second sign-in reuses the user', async () => {
    const account = xAccount();
    x.next = account;
    const from = x.requests.length;
    const first = await pkceSignIn('x');

    const { authorize, token, api } = requestsSince(x, from);
    expect(authorize?.query.get('scope')).toBe('users.read tweet.read');
    expect(authorize?.query.get('code_challenge_method')).toBe('S256');
    expect(token?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(basicCredentials(token?.headers.authorization)).toEqual({
      id: x.clientId,
      secret: x.clientSecret,
    });
    const form = new URLSearchParams(token?.body);
    expect(form.get('client_secret')).toBeNull();
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('redirect_uri')).toBe(`${t.url}/auth/v1/callback`);
    expect(s256(form.get('code_verifier') ?? '')).toBe(authorize?.query.get('code_challenge'));
    const accessToken = x.issued.at(-1);
    expect(api.map((r) => r.path)).toEqual(['/2/users/me']);
    expect(api[0]?.headers.authorization).toBe(`Bearer ${accessToken}`);

    // X shares no address: a user without one, nothing to confirm.
    expect(first.user.email).toBe('');
    expect(first.user.email_confirmed_at).toBeUndefined();
    expect(first.user.app_metadata).toMatchObject({ provider: 'x', providers: ['x'] });
    const identity = first.user.identities?.[0];
    expect(identity).toMatchObject({ provider: 'x', id: account.id });
    expect(identity?.identity_data).toMatchObject({
      iss: x.url,
      sub: account.id,
      provider_id: account.id,
      user_name: account.username,
      preferred_username: account.username,
      name: account.name,
      full_name: account.name,
      avatar_url: account.profile_image_url,
      picture: account.profile_image_url,
      email_verified: false,
    });
    expect(first.session.provider_token).toBe(accessToken);

    const second = await pkceSignIn('x');
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.identities).toHaveLength(1);
    expect(second.session.provider_token).toBe(x.issued.at(-1));
  });

  it("the token endpoint's refusal and a failing profile API: error redirects", async () => {
    x.next = xAccount();
    x.tokenAnswer = {
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'Value passed for the authorization code was invalid.',
      },
    };
    const refused = await signIn(client('pkce'), 'x');
    const e = errorOf(refused);
    expect(e).toMatchObject({ error: 'server_error', code: 'bad_oauth_callback' });
    expect(e.description).toMatch(/^Unable to exchange external code/);

    x.apiAnswers.set('/2/users/me', { status: 500, body: { title: 'Internal Server Error' } });
    try {
      const down = await signIn(client('pkce'), 'x');
      expect(down.origin + down.pathname).toBe(`${t.url}/welcome`);
      expect(errorOf(down)).toEqual({
        error: 'server_error',
        code: 'bad_oauth_callback',
        description: 'Error getting user profile from external provider',
      });
    } finally {
      x.apiAnswers.clear();
    }
  });
});

describe('EXTERNAL_X_URL and EXTERNAL_GITHUB_URL', () => {
  it('unset: the real hosts (the production path)', async () => {
    const prod = await startTestServer({
      EXTERNAL_GITHUB_ENABLED: 'true',
      EXTERNAL_GITHUB_CLIENT_ID: 'gh',
      EXTERNAL_GITHUB_SECRET: 'gh-secret',
      EXTERNAL_X_ENABLED: 'true',
      EXTERNAL_X_CLIENT_ID: 'xx',
      EXTERNAL_X_SECRET: 'xx-secret',
    });
    try {
      for (const [provider, where] of [
        ['github', 'https://github.com/login/oauth/authorize'],
        ['x', 'https://x.com/i/oauth2/authorize'],
      ]) {
        const res = await prod.api(`/authorize?provider=${provider}&skip_http_redirect=true`);
        expect(res.status).toBe(200);
        const url = new URL((await res.json()).url);
        expect(url.origin + url.pathname).toBe(where);
      }
    } finally {
      await prod.close();
    }
  });

  it('refuses plain http except on loopback', () => {
    const enabled = { EXTERNAL_X_ENABLED: 'true', EXTERNAL_X_CLIENT_ID: 'a', EXTERNAL_X_SECRET: 'b' };
    expect(() => loadConfig({ ...enabled, EXTERNAL_X_URL: 'http://x-relay.example' })).toThrow(
      /EXTERNAL_X_URL must be an https URL/,
    );
    expect(
      loadConfig({ ...enabled, EXTERNAL_X_URL: 'https://x-relay.example/' }).social.providers.x.url,
    ).toBe('https://x-relay.example');
    expect(loadConfig({ ...enabled, EXTERNAL_X_URL: 'http://127.0.0.1:9' }).social.providers.x.url).toBe(
      'http://127.0.0.1:9',
    );
    expect(loadConfig(enabled).social.providers.x.url).toBeUndefined();
  });
});
