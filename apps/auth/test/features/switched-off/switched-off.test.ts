// Features we do not offer answer as a GoTrue with them switched off (issue #17), through the
// official client where it has a method: SSO, manual linking, the id_token and web3 grants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
let accessToken: string;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  const { data } = await t
    .client()
    .auth.signUp({ email: uniqueEmail('off'), password: 'Switched-Off-Pass-1' });
  accessToken = data.session?.access_token as string;
});
afterAll(async () => {
  await t?.close();
});

/** An unsigned JWT-shaped token with this payload (the server only ever reads its `iss`). */
const fakeIdToken = (payload: object) =>
  `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;

async function raw(path: string, init: RequestInit & { auth?: boolean } = {}) {
  const headers = new Headers(init.headers);
  if (init.auth) headers.set('authorization', `Bearer ${accessToken}`);
  const res = await t.api(path, { ...init, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('SAML single sign-on', () => {
  it('signInWithSSO: 404 saml_provider_disabled "SAML 2.0 is disabled"', async () => {
    const { data, error } = await t.client().auth.signInWithSSO({ domain: 'example.com' });
    expect(data).toBeNull();
    expect(error).toMatchObject({
      status: 404,
      code: 'saml_provider_disabled',
      message: 'SAML 2.0 is disabled',
    });
    for (const [method, path] of [
      ['POST', '/sso'],
      ['GET', '/sso/saml/metadata'],
      ['POST', '/sso/saml/acs'],
    ] as const) {
      const r = await raw(path, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect([r.status, r.body.error_code, r.body.msg]).toEqual([
        404,
        'saml_provider_disabled',
        'SAML 2.0 is disabled',
      ]);
    }
  });

  it('still needs the apikey like every other endpoint', async () => {
    const res = await fetch(`${t.url}/auth/v1/sso`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });
});

describe('manual identity linking', () => {
  it('linkIdentity and unlinkIdentity: 404 manual_linking_disabled for a signed-in user', async () => {
    const link = await raw('/user/identities/authorize?provider=google&skip_http_redirect=true', {
      auth: true,
    });
    expect([link.status, link.body.error_code, link.body.msg]).toEqual([
      404,
      'manual_linking_disabled',
      'Manual linking is disabled',
    ]);
    const unlink = await raw(`/user/identities/${crypto.randomUUID()}`, { method: 'DELETE', auth: true });
    expect([unlink.status, unlink.body.error_code]).toEqual([404, 'manual_linking_disabled']);
  });

  it('without a session: the bearer-token answer first (GoTrue authenticates before the switch)', async () => {
    const r = await raw('/user/identities/authorize?provider=google');
    expect([r.status, r.body.error_code]).toEqual([401, 'no_authorization']);
  });
});

describe('id_token grant (signInWithIdToken)', () => {
  it('a known provider: 400 provider_disabled naming its issuer', async () => {
    const { error } = await t.client().auth.signInWithIdToken({ provider: 'google', token: fakeIdToken({}) });
    expect(error).toMatchObject({
      status: 400,
      code: 'provider_disabled',
      message: 'Provider (issuer "https://accounts.google.com") is not enabled',
    });
  });

  it.each([
    [{ provider: 'google' }, 400, { error: 'invalid request', error_description: 'id_token required' }],
    [
      { id_token: 'x' },
      400,
      { error: 'invalid request', error_description: 'provider or client_id and issuer required' },
    ],
    [
      { id_token: 'x', provider: 'google', link_identity: true },
      400,
      {
        error: 'invalid request',
        error_description: 'Linking requires a valid user access token in Authorization',
      },
    ],
    [
      { id_token: 'not-a-jwt', provider: 'apple' },
      400,
      { error_code: 'validation_failed', msg: 'Unable to detect issuer in ID token for Apple provider' },
    ],
    [
      { id_token: fakeIdToken({ iss: 'https://evil.example' }), provider: 'apple' },
      400,
      { error_code: 'validation_failed', msg: 'Detected ID token issuer is not an Apple ID token issuer' },
    ],
    [
      { id_token: fakeIdToken({ iss: 'https://appleid.apple.com' }), provider: 'apple' },
      400,
      {
        error_code: 'provider_disabled',
        msg: 'Provider (issuer "https://appleid.apple.com") is not enabled',
      },
    ],
    [
      { id_token: fakeIdToken({ iss: 'https://login.microsoftonline.com/t/v2.0' }), provider: 'azure' },
      400,
      {
        error_code: 'provider_disabled',
        msg: 'Provider (issuer "https://login.microsoftonline.com/t/v2.0") is not enabled',
      },
    ],
    [
      { id_token: 'x', provider: 'keycloak' },
      400,
      { error_code: 'provider_disabled', msg: 'Provider (issuer "") is not enabled' },
    ],
    [
      { id_token: 'x', provider: 'custom:acme' },
      400,
      { error_code: 'validation_failed', msg: 'Custom OAuth providers are disabled' },
    ],
    [
      { id_token: 'x', provider: 'myidp' },
      400,
      { error_code: 'validation_failed', msg: 'Custom OIDC provider "myidp" not allowed' },
    ],
    [{ id_token: 42 }, 400, { error_code: 'validation_failed' }],
  ])('%j → %i %j', async (body, status, expected) => {
    // The legacy shape (no API version header), where GoTrue's error_code and msg are visible.
    const r = await raw('/token?grant_type=id_token', { method: 'POST', body: JSON.stringify(body) });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject(expected);
  });
});

describe('web3 grant', () => {
  it('422 web3_provider_disabled "Web3 provider is disabled", whatever the body', async () => {
    for (const body of ['{}', JSON.stringify({ chain: 'solana', message: 'm', signature: 's' })]) {
      const r = await raw('/token?grant_type=web3', { method: 'POST', body });
      expect([r.status, r.body.error_code, r.body.msg]).toEqual([
        422,
        'web3_provider_disabled',
        'Web3 provider is disabled',
      ]);
    }
  });
});
