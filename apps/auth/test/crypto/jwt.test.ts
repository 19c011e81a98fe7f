// Attacks on access tokens at authenticated endpoints: every forged or stale token gets GoTrue's
// 401/403 JSON, never a 200 or a 500.
import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

let t: TestServer;
let access: string;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  const sb = t.client();
  const { data, error } = await sb.auth.signUp({
    email: uniqueEmail('jwt'),
    password: 'Namaa-jwt-Pass-3318',
  });
  expect(error).toBeNull();
  access = data.session?.access_token as string;
});
afterAll(async () => {
  await t?.close();
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function getUser(token: string) {
  const res = await t.api('/user', {
    headers: { authorization: `Bearer ${token}`, 'X-Supabase-Api-Version': '2024-01-01' },
  });
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
}

describe('JWT attacks on GET /user', () => {
  it('accepts the genuine token (control)', async () => {
    expect((await getUser(access)).status).toBe(200);
  });

  it('rejects alg none, HS256 signed with the public key, unknown and traversal kids, tampering, expiry and wrong aud', async () => {
    const header = decodeProtectedHeader(access);
    const claims = decodeJwt(access);
    const [h, p, s] = access.split('.') as [string, string, string];
    const forged: Record<string, string> = {};
    forged.none = `${b64({ alg: 'none', typ: 'JWT', kid: header.kid })}.${p}.`;
    forged.noneNoSig = `${b64({ alg: 'none', typ: 'JWT' })}.${p}`;
    // HS256 "signed" with the published public key (classic alg confusion).
    const jwks = (await (await t.api('/.well-known/jwks.json')).json()) as { keys: JWK[] };
    const pub = jwks.keys.find((k) => k.kid === header.kid) as JWK;
    forged.hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: header.kid as string })
      .sign(new TextEncoder().encode(JSON.stringify(pub)));
    // A key of our own with an unknown kid / a path-traversal kid / an embedded jwk header.
    const attacker = await generateKeyPair('ES256', { extractable: true });
    const sign = (hdr: Record<string, unknown>, body = claims) =>
      new SignJWT(body).setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...hdr }).sign(attacker.privateKey);
    forged.unknownKid = await sign({ kid: '6c1b3a52-0000-4000-8000-000000000000' });
    forged.traversalKid = await sign({ kid: '../../../../etc/passwd' });
    forged.embeddedJwk = await sign({ kid: header.kid, jwk: await exportJWK(attacker.publicKey) });
    // Tampered claims with the original signature.
    forged.tampered = `${h}.${b64({ ...claims, role: 'service_role', aal: 'aal2' })}.${s}`;
    // Correctly signed by OUR key (taken from the database), but expired / for another audience.
    const ours = (await t.server.deps.db.query.signingKeys.findFirst()) as { privateJwk: JWK; kid: string };
    const key = await importJWK(ours.privateJwk, 'ES256');
    const now = Math.floor(Date.now() / 1000);
    forged.expired = await new SignJWT({ ...claims, iat: now - 7200, exp: now - 3600 })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: ours.kid })
      .sign(key);
    forged.wrongAud = await new SignJWT({ ...claims, aud: 'someone-else' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: ours.kid })
      .sign(key);
    forged.garbage = 'not.a.jwt';
    forged.huge = `${h}.${'A'.repeat(14_000)}.${s}`;

    for (const [name, token] of Object.entries(forged)) {
      const { status, body } = await getUser(token);
      expect({ name, status }).toEqual({ name, status: 403 });
      expect(body.code, name).toBe('bad_jwt');
      expect(body.message, name).toMatch(/^invalid JWT/);
    }
    const missing = await t.api('/user');
    expect(missing.status).toBe(401);
  });

  it('rejects the high-S twin of a genuine ES256 signature, and only ever signs low S', async () => {
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const sOf = (token: string) =>
      BigInt(
        `0x${Buffer.from(token.split('.')[2] as string, 'base64url')
          .subarray(32)
          .toString('hex')}`,
      );
    // Fresh tokens from the real service (sign-ins): all low S, so each has a valid high-S twin.
    const tokens = [access];
    for (let i = 0; i < 24; i++) {
      const { data, error } = await t.client().auth.signInWithPassword({
        email: decodeJwt(access).email as string,
        password: 'Namaa-jwt-Pass-3318',
      });
      expect(error).toBeNull();
      tokens.push(data.session?.access_token as string);
    }
    for (const token of tokens) expect(sOf(token) <= n >> 1n).toBe(true);
    const [h, p, sig] = access.split('.') as [string, string, string];
    const raw = Buffer.from(sig, 'base64url');
    Buffer.from((n - sOf(access)).toString(16).padStart(64, '0'), 'hex').copy(raw, 32);
    const twin = `${h}.${p}.${raw.toString('base64url')}`;
    // The twin is a mathematically valid signature (WebCrypto accepts it) ...
    const jwk = t.server.deps.keys
      .jwks()
      .keys.find((k) => k.kid === decodeProtectedHeader(access).kid) as JWK;
    const publicKey = await importJWK(jwk, 'ES256');
    await expect(jwtVerify(twin, publicKey)).resolves.toBeDefined();
    // ... and the service refuses it.
    const refused = await getUser(twin);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('bad_jwt');
    expect((await getUser(access)).status).toBe(200);
  });

  it('rejects a token whose session was revoked (signed out)', async () => {
    const sb = t.client();
    const { data } = await sb.auth.signUp({ email: uniqueEmail('revoked'), password: 'Namaa-jwt-Pass-3318' });
    const token = data.session?.access_token as string;
    expect((await getUser(token)).status).toBe(200);
    await sb.auth.signOut();
    const after = await getUser(token);
    expect(after.status).toBe(403);
    expect(after.body.code).toBe('session_not_found');
  });
});
