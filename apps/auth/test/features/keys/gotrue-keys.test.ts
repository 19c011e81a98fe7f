// GoTrue's keys and settings, so the service can replace GoTrue beside PostgREST, Storage and
// Realtime: JWT_SECRET (HS256), JWT_KEYS (RS256/ES256 signers, verify-only and oct keys), JWT_AUD,
// JWT_DEFAULT_GROUP_NAME, API_EXTERNAL_URL, API_KEY_REQUIRED and API_PATH. Tokens are checked the way
// PostgREST does it: jose with the configured secret, or the published JWKS.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { GoTrueClient } from '@supabase/auth-js';
import { createClient } from '@supabase/supabase-js';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Namaa-gotrue-Keys-4417';
const SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
const clientOptions = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

function rsaJwk(kid: string, ops: string[]): JWK {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg: 'RS256', key_ops: ops };
}
function ecJwk(kid: string, ops: string[]): JWK {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg: 'ES256', key_ops: ops };
}
const octJwk = (kid: string, secret: string): JWK => ({
  kty: 'oct',
  kid,
  alg: 'HS256',
  k: Buffer.from(secret).toString('base64url'),
  key_ops: ['verify'],
});

/** jose refuses to sign with a JWK whose key_ops say "verify" only (GoTrue's verify-only keys). */
const withoutOps = ({ key_ops: _ops, ...jwk }: JWK): JWK => jwk;

/** A JWT as an operator's script or another Supabase service would mint it. */
async function mint(claims: JWTPayload, jwk: JWK | Uint8Array, header: { alg: string; kid?: string }) {
  const key = jwk instanceof Uint8Array ? jwk : await importJWK(withoutOps(jwk), header.alg);
  return new SignJWT(claims).setProtectedHeader(header).setIssuedAt().setExpirationTime('5m').sign(key);
}

async function signUp(t: TestServer) {
  const email = uniqueEmail('gotrue-keys');
  const { data, error } = await t.client().auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  return { email, token: data.session?.access_token as string, userId: data.user?.id as string };
}

/** The admin API with a bearer token and no service key (as GoTrue's own callers do it). */
function adminList(t: TestServer, bearer: string) {
  return fetch(`${t.url}/auth/v1/admin/users?per_page=1`, {
    headers: { apikey: t.anonKey, authorization: `Bearer ${bearer}`, 'X-Supabase-Api-Version': '2024-01-01' },
  });
}

async function publishedKeys(t: TestServer): Promise<JWK[]> {
  return ((await (await t.api('/.well-known/jwks.json')).json()) as { keys: JWK[] }).keys;
}

describe('JWT_SECRET alone: HS256 signs and verifies, as GoTrue with only a secret', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', JWT_SECRET: SECRET });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('access tokens are HS256 with the secret (no kid), verified as PostgREST does, and the API accepts them', async () => {
    const { token, userId, email } = await signUp(t);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), {
      algorithms: ['HS256'],
      audience: 'authenticated',
    });
    expect(payload).toMatchObject({ sub: userId, role: 'authenticated', email });
    const sb = createClient(t.url, t.anonKey, clientOptions);
    const { data, error } = await sb.auth.getUser(token);
    expect(error).toBeNull();
    expect(data.user?.id).toBe(userId);
    // The secret is never published; the database key (verify-only now) still is.
    const keys = await publishedKeys(t);
    expect(keys.every((k) => k.kty === 'EC' && k.d === undefined)).toBe(true);
  });

  it('a service_role JWT signed with the secret is an admin credential; a wrong secret or alg confusion is 403 bad_jwt', async () => {
    const admin = await mint({ role: 'service_role' }, new TextEncoder().encode(SECRET), { alg: 'HS256' });
    expect((await adminList(t, admin)).status).toBe(200);
    const wrong = await mint({ role: 'service_role' }, new TextEncoder().encode(`${SECRET}-not`), {
      alg: 'HS256',
    });
    const res = await adminList(t, wrong);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'bad_jwt' });
    // HS256 keyed with the published ES256 key's text (the classic confusion): refused.
    const [pub] = await publishedKeys(t);
    const confused = await mint({ role: 'service_role' }, new TextEncoder().encode(JSON.stringify(pub)), {
      alg: 'HS256',
      kid: pub?.kid as string,
    });
    expect((await adminList(t, confused)).status).toBe(403);
    // A user's own token is valid but not an admin one.
    const { token } = await signUp(t);
    expect(await (await adminList(t, token)).json()).toMatchObject({ code: 'not_admin' });
  });
});

describe('JWT_KEYS: an RS256 signer, an ES256 verify-only key and an oct key (GoTrue rotation)', () => {
  let t: TestServer;
  const signer = rsaJwk(randomUUID(), ['sign', 'verify']);
  const previous = ecJwk('previous-es256', ['verify']);
  const oct = octJwk('legacy-hs256', 'a-legacy-shared-secret-of-more-than-32-bytes');
  beforeAll(async () => {
    t = await startTestServer({
      MAILER_AUTOCONFIRM: 'true',
      JWT_KEYS: JSON.stringify([signer, previous, oct]),
      JWT_SECRET: SECRET,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('signs RS256 with the signer kid; the JWKS publishes every public key and no secret; jose verifies through it', async () => {
    const { token, userId } = await signUp(t);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', kid: signer.kid });
    const keys = await publishedKeys(t);
    const kids = keys.map((k) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([signer.kid, previous.kid]));
    expect(kids).not.toContain(oct.kid);
    for (const k of keys) {
      expect(k.d).toBeUndefined();
      expect(k.p).toBeUndefined();
      expect(k.kty).not.toBe('oct');
      expect(k).toMatchObject({ use: 'sig', key_ops: ['verify'] });
    }
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys }), { audience: 'authenticated' });
    expect(payload.sub).toBe(userId);
    // supabase-js verifies RS256 locally against the same JWKS.
    const sb = createClient(t.url, t.anonKey, clientOptions);
    const claims = await sb.auth.getClaims(token);
    expect(claims.error).toBeNull();
    expect(claims.data?.header.alg).toBe('RS256');
    const config = await (await t.api('/.well-known/openid-configuration')).json();
    expect(config.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']));
  });

  it('admin JWTs signed by the verify-only ES256 key, the oct key (by kid) and the secret (no kid) are accepted', async () => {
    const byPrevious = await mint({ role: 'service_role' }, previous, {
      alg: 'ES256',
      kid: previous.kid as string,
    });
    expect((await adminList(t, byPrevious)).status).toBe(200);
    const byOct = await mint({ role: 'supabase_admin' }, oct, { alg: 'HS256', kid: oct.kid as string });
    expect((await adminList(t, byOct)).status).toBe(200);
    const bySecret = await mint({ role: 'service_role' }, new TextEncoder().encode(SECRET), { alg: 'HS256' });
    expect((await adminList(t, bySecret)).status).toBe(200);
  });

  it("a key's algorithm is pinned: HS256 under the RSA kid, an unknown kid, or an expired token are refused", async () => {
    const rsaPublic = (await publishedKeys(t)).find((k) => k.kid === signer.kid);
    const confused = await mint(
      { role: 'service_role' },
      new TextEncoder().encode(JSON.stringify(rsaPublic)),
      {
        alg: 'HS256',
        kid: signer.kid as string,
      },
    );
    const res = await adminList(t, confused);
    expect(res.status).toBe(403);
    expect((await res.json()).message).toMatch(/signing method HS256 is invalid/);
    const stranger = ecJwk('stranger', ['sign']);
    const unknown = await mint({ role: 'service_role' }, stranger, { alg: 'ES256', kid: 'stranger' });
    expect((await adminList(t, unknown)).status).toBe(403);
    const expired = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'RS256', kid: signer.kid as string })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(await importJWK(withoutOps(signer), 'RS256'));
    expect((await adminList(t, expired)).status).toBe(403);
  });
});

describe('JWT_KEYS with an ES256 signer', () => {
  it('signs ES256 with the configured kid, low-S, and verifies its own tokens', async () => {
    const signer = ecJwk('es-signer', ['sign', 'verify']);
    const t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', JWT_KEYS: JSON.stringify([signer]) });
    try {
      const { token, userId } = await signUp(t);
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid: 'es-signer' });
      const { payload } = await jwtVerify(
        token,
        await importJWK({ ...withoutOps(signer), d: undefined }, 'ES256'),
      );
      expect(payload.sub).toBe(userId);
      const { data, error } = await createClient(t.url, t.anonKey, clientOptions).auth.getUser(token);
      expect(error).toBeNull();
      expect(data.user?.id).toBe(userId);
    } finally {
      await t.close();
    }
  });
});

describe('JWT_AUD, JWT_DEFAULT_GROUP_NAME and API_EXTERNAL_URL', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      JWT_AUD: 'namaa-api',
      JWT_DEFAULT_GROUP_NAME: 'member',
      API_EXTERNAL_URL: 'https://auth.namaa.test/auth/v1/',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('new users and their tokens carry the configured aud and role; the email link and the issuer use API_EXTERNAL_URL', async () => {
    const email = uniqueEmail('aud');
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ aud: 'namaa-api', role: 'member' });
    const mail = await t.inbox.waitFor(email);
    const link = mail.links.find((l) => l.includes('/verify?')) as string;
    expect(link.startsWith('https://auth.namaa.test/auth/v1/verify?token=')).toBe(true);
    // The same link, followed on this server, signs the user in.
    const local = new URL(link);
    const res = await fetch(`${t.url}/auth/v1/verify${local.search}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const fragment = new URLSearchParams(new URL(res.headers.get('location') as string).hash.slice(1));
    const token = fragment.get('access_token') as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString());
    expect(claims).toMatchObject({
      aud: 'namaa-api',
      role: 'member',
      iss: 'https://auth.namaa.test/auth/v1',
    });
    const user = await sb.auth.getUser(token);
    expect(user.error).toBeNull();
    expect(user.data.user).toMatchObject({ aud: 'namaa-api', role: 'member' });
  });
});

describe('API_KEY_REQUIRED=false and API_PATH=/ (GoTrue as its own container serves it)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      MAILER_AUTOCONFIRM: 'true',
      API_KEY_REQUIRED: 'false',
      API_PATH: '/',
      SERVICE_ROLE_KEY: 'namaa-service-role-key-for-the-gotrue-keys-suite',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the API answers at the root without an apikey (or with one it does not know); /auth/v1 is gone', async () => {
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    expect((await fetch(`${t.url}/settings`, { headers: { apikey: 'some-gateway-key' } })).status).toBe(200);
    expect((await fetch(`${t.url}/auth/v1/health`)).status).toBe(404);
    // The official client pointed at the root, sending no apikey at all.
    const auth = new GoTrueClient({ url: t.url, persistSession: false, autoRefreshToken: false });
    const email = uniqueEmail('root');
    const signUp = await auth.signUp({ email, password: PASSWORD });
    expect(signUp.error).toBeNull();
    const signIn = await auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.error).toBeNull();
    expect((await auth.getUser()).data.user?.email).toBe(email);
    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
  });

  it('the admin API still needs an admin credential: none is 401 no_authorization, the service key passes', async () => {
    const none = await fetch(`${t.url}/admin/users`, { headers: { 'X-Supabase-Api-Version': '2024-01-01' } });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'no_authorization' });
    const key = 'namaa-service-role-key-for-the-gotrue-keys-suite';
    const ok = await fetch(`${t.url}/admin/users`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
  });

  it('email links point at the root path', async () => {
    const t2 = await startTestServer({ API_PATH: '/', API_KEY_REQUIRED: 'false' });
    try {
      const email = uniqueEmail('root-link');
      const res = await fetch(`${t2.url}/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      expect(res.status).toBe(200);
      const mail = await t2.inbox.waitFor(email);
      const link = mail.links.find((l) => l.includes('/verify?')) as string;
      expect(link.startsWith(`${t2.url}/verify?token=`)).toBe(true);
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
    } finally {
      await t2.close();
    }
  });
});

describe('the settings refuse broken keys with one line naming the key, never its material', () => {
  const base = { NODE_ENV: 'test' };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };
  it.each([
    ['not JSON', { JWT_KEYS: '{nope' }, /JWT_KEYS: not JSON/],
    ['no signer', { JWT_KEYS: JSON.stringify([ecJwk('a', ['verify'])]) }, /no signing key/],
    [
      'two signers',
      { JWT_KEYS: JSON.stringify([ecJwk('a', ['sign']), ecJwk('b', ['sign'])]) },
      /multiple signing keys/,
    ],
    ['a short secret', { JWT_SECRET: 'too-short' }, /JWT_SECRET: must be at least 32/],
    [
      'an unsupported alg',
      { JWT_KEYS: JSON.stringify([{ ...ecJwk('a', ['sign']), alg: 'none' }]) },
      /alg none/,
    ],
    [
      'a 1024-bit RSA key',
      {
        JWT_KEYS: JSON.stringify([
          {
            ...(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
              format: 'jwk',
            }) as JWK),
            kid: 'weak',
            alg: 'RS256',
            key_ops: ['sign'],
          },
        ]),
      },
      /at least 2048 bits/,
    ],
    [
      'a broken EC key',
      { JWT_KEYS: JSON.stringify([{ ...ecJwk('a', ['sign']), x: 'AAAA' }]) },
      /not a valid ES256 key/,
    ],
    ['a bad API_PATH', { API_PATH: 'auth v1' }, /API_PATH/],
    ['a bad API_EXTERNAL_URL', { API_EXTERNAL_URL: 'ftp://x' }, /API_EXTERNAL_URL/],
  ])('%s', (_name, env, message) => {
    const text = refusal(env as Record<string, string>);
    expect(text).toMatch(message);
    expect(text).not.toMatch(/"d"|"k":/);
  });
});
