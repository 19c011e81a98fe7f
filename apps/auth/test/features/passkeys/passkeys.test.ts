// Passkeys as a first factor (issue #17) through the official client's passkey API and a software
// authenticator (support/virtual-authenticator.ts): registration, the two-step discoverable
// sign-in, list / rename / delete, the admin list and delete; single use of every challenge, 20
// parallel sign-ins with one assertion, unknown and forged credentials alike, bad input, the cap,
// anonymous users, aal2 with MFA on, and GoTrue's answers with passkeys off.
import { createClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passkeyChallenges } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';
import { VirtualAuthenticator } from '../../support/virtual-authenticator.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'Passkey-Test-Pass-9321';
const SERVICE_KEY = 'passkeys-service-role-key-for-tests-0123456789';

let t: TestServer;
let origin: string;

beforeAll(async () => {
  t = await startTestServer({
    PASSKEY_ENABLED: 'true',
    MAILER_AUTOCONFIRM: 'true',
    EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
    SERVICE_ROLE_KEY: SERVICE_KEY,
    // The per-IP limit has its own test (test/core/http/rate-limits.test.ts); here every call is one IP.
    RATE_LIMIT_PASSKEY_PER_IP: '100000',
  });
  origin = new URL(t.config.SITE_URL).origin;
});
afterAll(async () => {
  await t?.close();
});

/** A signed-in account with one registered passkey. */
async function accountWithPasskey() {
  const sb = t.client();
  const { data, error } = await sb.auth.signUp({ email: uniqueEmail('passkey'), password: PASSWORD });
  expect(error).toBeNull();
  const key = new VirtualAuthenticator(origin);
  const options = await sb.auth.passkey.startRegistration();
  expect(options.error).toBeNull();
  const created = await sb.auth.passkey.verifyRegistration({
    challengeId: options.data?.challenge_id as string,
    credential: key.create(options.data?.options as never) as never,
  });
  expect(created.error).toBeNull();
  return { sb, key, userId: data.user?.id as string, passkeyId: created.data?.id as string };
}

/** A passkey sign-in from a fresh client: both steps, the authenticator answering in between. */
async function signInWith(key: VirtualAuthenticator) {
  const sb = t.client();
  const options = await sb.auth.passkey.startAuthentication();
  expect(options.error).toBeNull();
  const result = await sb.auth.passkey.verifyAuthentication({
    challengeId: options.data?.challenge_id as string,
    credential: key.get(options.data?.options as never) as never,
  });
  return { sb, ...result };
}

async function post(path: string, body: unknown, token?: string) {
  const res = await t.api(path, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('settings', () => {
  it('GET /settings says passkeys_enabled (what the site reads before showing its passkey buttons)', async () => {
    expect(await (await t.api('/settings')).json()).toMatchObject({ passkeys_enabled: true });
  });
});

describe('registration', () => {
  it('startRegistration: creation options for a discoverable ES256 credential of this RP and user', async () => {
    const sb = t.client();
    const { data: signup } = await sb.auth.signUp({ email: uniqueEmail('pk-opts'), password: PASSWORD });
    const { data, error } = await sb.auth.passkey.startRegistration();
    expect(error).toBeNull();
    expect(data?.challenge_id).toMatch(UUID);
    expect(data?.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
    const options = data?.options as unknown as {
      rp: { id: string };
      user: { id: string; name: string };
      pubKeyCredParams: { alg: number }[];
      authenticatorSelection: { residentKey: string };
      challenge: string;
    };
    expect(options.rp.id).toBe(new URL(origin).hostname);
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(signup.user?.id);
    expect(options.pubKeyCredParams.map((p) => p.alg)).toContain(-7);
    expect(options.authenticatorSelection.residentKey).toBe('required');
    expect(options.challenge).toEqual(expect.any(String));
  });

  it('verifyRegistration stores the passkey; list shows it; one challenge registers once', async () => {
    const { sb, passkeyId } = await accountWithPasskey();
    expect(passkeyId).toMatch(UUID);
    const list = await sb.auth.passkey.list();
    expect(list.error).toBeNull();
    expect(list.data).toEqual([{ id: passkeyId, created_at: expect.any(String) }]);

    const second = new VirtualAuthenticator(origin);
    const options = await sb.auth.passkey.startRegistration();
    const credential = second.create(options.data?.options as never) as never;
    const challengeId = options.data?.challenge_id as string;
    expect((await sb.auth.passkey.verifyRegistration({ challengeId, credential })).error).toBeNull();
    expect((await sb.auth.passkey.verifyRegistration({ challengeId, credential })).error).toMatchObject({
      status: 400,
      code: 'webauthn_challenge_not_found',
    });
  });

  it('refuses an unknown, expired or foreign challenge, a registered credential and a forged attestation', async () => {
    const { sb, key } = await accountWithPasskey();
    const other = await accountWithPasskey();
    const fresh = new VirtualAuthenticator(origin);

    const unknown = await sb.auth.passkey.startRegistration();
    const cred = fresh.create(unknown.data?.options as never) as never;
    expect(
      (await sb.auth.passkey.verifyRegistration({ challengeId: crypto.randomUUID(), credential: cred }))
        .error,
    ).toMatchObject({ status: 400, code: 'webauthn_challenge_not_found' });
    // Another user's ceremony is not found for this one (and is used up by neither).
    const foreign = await other.sb.auth.passkey.startRegistration();
    expect(
      (
        await sb.auth.passkey.verifyRegistration({
          challengeId: foreign.data?.challenge_id as string,
          credential: fresh.create(foreign.data?.options as never) as never,
        })
      ).error,
    ).toMatchObject({ code: 'webauthn_challenge_not_found' });

    const expiring = await sb.auth.passkey.startRegistration();
    await t.server.deps.db
      .update(passkeyChallenges)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passkeyChallenges.id, expiring.data?.challenge_id as string));
    expect(
      (
        await sb.auth.passkey.verifyRegistration({
          challengeId: expiring.data?.challenge_id as string,
          credential: fresh.create(expiring.data?.options as never) as never,
        })
      ).error,
    ).toMatchObject({ status: 400, code: 'webauthn_challenge_expired' });

    // The same authenticator again (a browser's excludeCredentials would have stopped it).
    const again = await sb.auth.passkey.startRegistration();
    expect(
      (
        await sb.auth.passkey.verifyRegistration({
          challengeId: again.data?.challenge_id as string,
          credential: key.create(again.data?.options as never) as never,
        })
      ).error,
    ).toMatchObject({ status: 422, code: 'webauthn_credential_exists' });

    // An attestation made for another challenge.
    const one = await sb.auth.passkey.startRegistration();
    const two = await sb.auth.passkey.startRegistration();
    expect(
      (
        await sb.auth.passkey.verifyRegistration({
          challengeId: two.data?.challenge_id as string,
          credential: fresh.create(one.data?.options as never) as never,
        })
      ).error,
    ).toMatchObject({ status: 400, code: 'webauthn_verification_failed' });
    expect((await sb.auth.passkey.list()).data).toHaveLength(1);
  });

  it('PASSKEY_MAX_PER_USER caps the passkeys of an account (422 too_many_passkeys)', async () => {
    const { sb } = await accountWithPasskey();
    t.config.passkey.maxPerUser = 1;
    try {
      expect((await sb.auth.passkey.startRegistration()).error).toMatchObject({
        status: 422,
        code: 'too_many_passkeys',
      });
    } finally {
      t.config.passkey.maxPerUser = 10;
    }
  });

  it('needs a signed-in, non-anonymous user', async () => {
    expect((await t.client().auth.passkey.startRegistration()).error?.name).toBe('AuthSessionMissingError');
    const anon = t.client();
    expect((await anon.auth.signInAnonymously()).error).toBeNull();
    expect((await anon.auth.passkey.startRegistration()).error).toMatchObject({ status: 403 });
  });
});

describe('sign-in', () => {
  it('the two-step discoverable sign-in returns a session (AMR passkey) and records the use', async () => {
    const { sb: owner, key, userId } = await accountWithPasskey();
    const sb = t.client();
    const options = await sb.auth.passkey.startAuthentication();
    expect(options.error).toBeNull();
    expect(options.data?.challenge_id).toMatch(UUID);
    const requestOptions = options.data?.options as { allowCredentials?: unknown[] } | undefined;
    expect(requestOptions?.allowCredentials ?? []).toHaveLength(0);
    const { data, error } = await sb.auth.passkey.verifyAuthentication({
      challengeId: options.data?.challenge_id as string,
      credential: key.get(options.data?.options as never) as never,
    });
    expect(error).toBeNull();
    expect(data?.user?.id).toBe(userId);
    expect(decodeJwt(data?.session?.access_token as string)).toMatchObject({
      sub: userId,
      aal: 'aal1',
      amr: [{ method: 'passkey' }],
    });
    expect((await sb.auth.getUser()).data.user?.id).toBe(userId);
    expect((await owner.auth.passkey.list()).data?.[0]?.last_used_at).toEqual(expect.any(String));
  });

  it('a challenge is single use: 20 parallel verifies of one assertion give exactly one session', async () => {
    const { key } = await accountWithPasskey();
    const options = (await post('/passkeys/authentication/options', {})).body as {
      challenge_id: string;
      options: never;
    };
    const credential = key.get(options.options);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        post('/passkeys/authentication/verify', { challenge_id: options.challenge_id, credential }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.error_code === 'webauthn_challenge_not_found')).toHaveLength(19);
  });

  it('an old assertion with a new challenge, an unregistered or forged credential: the same refusal', async () => {
    const { key, userId } = await accountWithPasskey();
    const first = await signInWith(key);
    expect(first.error).toBeNull();
    const options = (await post('/passkeys/authentication/options', {})).body as {
      challenge_id: string;
      options: { challenge: string };
    };
    // Replay: an assertion signed over another challenge.
    const stale = key.get({ ...options.options, challenge: Buffer.from('old').toString('base64url') });
    const replay = await post('/passkeys/authentication/verify', {
      challenge_id: options.challenge_id,
      credential: stale,
    });
    // An authenticator bound to the real user handle, never registered.
    const stranger = new VirtualAuthenticator(origin);
    stranger.create({ challenge: 'x', rp: {}, user: { id: Buffer.from(userId).toString('base64url') } });
    const unregistered = await signInWith(stranger);
    // The registered credential id with a signature by another key.
    const forged = await (async () => {
      const o = (await post('/passkeys/authentication/options', {})).body as {
        challenge_id: string;
        options: never;
      };
      const real = key.get(o.options) as { response: Record<string, string> };
      const fake = stranger.get(o.options) as { response: Record<string, string> };
      return post('/passkeys/authentication/verify', {
        challenge_id: o.challenge_id,
        credential: { ...real, response: { ...real.response, signature: fake.response.signature } },
      });
    })();
    for (const r of [replay, forged])
      expect([r.status, r.body.error_code]).toEqual([400, 'webauthn_verification_failed']);
    expect(unregistered.error).toMatchObject({ status: 400, code: 'webauthn_verification_failed' });
  });

  it('bad input answers 4xx in GoTrue shape, never a 500', async () => {
    const cases: [unknown, number, string][] = [
      [{}, 400, 'validation_failed'],
      [{ challenge_id: crypto.randomUUID() }, 400, 'validation_failed'],
      [{ challenge_id: 'not-a-uuid', credential: {} }, 400, 'validation_failed'],
      [{ challenge_id: 42, credential: {} }, 400, 'validation_failed'],
      [{ challenge_id: crypto.randomUUID(), credential: 'abc' }, 400, 'validation_failed'],
      [{ challenge_id: crypto.randomUUID(), credential: {} }, 400, 'webauthn_challenge_not_found'],
      [
        { challenge_id: crypto.randomUUID(), credential: { blob: 'x'.repeat(70_000) } },
        400,
        'validation_failed',
      ],
      ['{not json', 400, 'bad_json'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post('/passkeys/authentication/verify', body);
      expect([r.status, r.body.error_code], JSON.stringify(body).slice(0, 80)).toEqual([status, code]);
    }
    // Hostile credentials on a live challenge: refused as a failed verification.
    for (const credential of [
      {},
      { id: 'x'.repeat(5000) },
      { id: 'abc', response: null },
      { id: 'abc', response: { clientDataJSON: '!!', authenticatorData: 5, signature: [] } },
      { id: ['a'], rawId: { a: 1 }, type: 'public-key' },
    ]) {
      const o = (await post('/passkeys/authentication/options', {})).body as { challenge_id: string };
      const r = await post('/passkeys/authentication/verify', { challenge_id: o.challenge_id, credential });
      expect([r.status, r.body.error_code], JSON.stringify(credential).slice(0, 80)).toEqual([
        400,
        'webauthn_verification_failed',
      ]);
    }
  });
});

describe('management', () => {
  it('rename: a friendly name of 1–120 characters; unknown or malformed ids are 404', async () => {
    const { sb, passkeyId } = await accountWithPasskey();
    const renamed = await sb.auth.passkey.update({ passkeyId, friendlyName: 'Laptop key' });
    expect(renamed.error).toBeNull();
    expect(renamed.data).toMatchObject({ id: passkeyId, friendly_name: 'Laptop key' });
    expect((await sb.auth.passkey.list()).data?.[0]?.friendly_name).toBe('Laptop key');
    expect((await sb.auth.passkey.update({ passkeyId, friendlyName: '' })).error).toMatchObject({
      status: 400,
    });
    expect((await sb.auth.passkey.update({ passkeyId, friendlyName: 'x'.repeat(121) })).error).toMatchObject({
      status: 400,
    });
    for (const id of [crypto.randomUUID(), 'not-a-uuid'])
      expect((await sb.auth.passkey.update({ passkeyId: id, friendlyName: 'n' })).error).toMatchObject({
        status: 404,
      });
    // Another account's passkey is not found either.
    const other = await accountWithPasskey();
    expect(
      (await sb.auth.passkey.update({ passkeyId: other.passkeyId, friendlyName: 'n' })).error,
    ).toMatchObject({
      status: 404,
    });
    expect((await sb.auth.passkey.delete({ passkeyId: other.passkeyId })).error).toMatchObject({
      status: 404,
    });
  });

  it('delete removes the passkey, and it no longer signs in', async () => {
    const { sb, key, passkeyId } = await accountWithPasskey();
    expect((await sb.auth.passkey.delete({ passkeyId })).error).toBeNull();
    expect((await sb.auth.passkey.list()).data).toEqual([]);
    expect((await signInWith(key)).error).toMatchObject({
      status: 400,
      code: 'webauthn_verification_failed',
    });
  });

  it('the admin API lists and deletes a user’s passkeys; others are refused', async () => {
    const { userId, passkeyId, key } = await accountWithPasskey();
    const admin = createClient(t.url, SERVICE_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
    }).auth.admin;
    const listed = await admin.passkey.listPasskeys({ userId });
    expect(listed.error).toBeNull();
    expect(listed.data?.map((p) => p.id)).toEqual([passkeyId]);
    expect((await admin.passkey.deletePasskey({ userId, passkeyId })).error).toBeNull();
    expect((await admin.passkey.listPasskeys({ userId })).data).toEqual([]);
    expect((await admin.passkey.deletePasskey({ userId, passkeyId })).error).toMatchObject({ status: 404 });
    expect((await admin.passkey.listPasskeys({ userId: crypto.randomUUID() })).error).toMatchObject({
      status: 404,
    });
    expect((await signInWith(key)).error).toMatchObject({ code: 'webauthn_verification_failed' });
    // With the anon key (a browser's), the admin routes are refused.
    const res = await t.api(`/admin/users/${userId}/passkeys`);
    expect(res.status).toBe(403);
  });
});

describe('with MFA on', () => {
  it('registering and deleting a passkey need an aal2 session (403 insufficient_aal from aal1)', async () => {
    const { sb, passkeyId } = await accountWithPasskey();
    const { data: user } = await sb.auth.getUser();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const factor = enrolled.data as { id: string; totp: { secret: string } };
    const code = await generate({ secret: factor.totp.secret, epoch: Math.floor(Date.now() / 1000) });
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code })).error).toBeNull();
    // A fresh password sign-in is aal1 until its second factor.
    const aal1 = t.client();
    expect(
      (await aal1.auth.signInWithPassword({ email: user.user?.email as string, password: PASSWORD })).error,
    ).toBeNull();
    expect((await aal1.auth.passkey.startRegistration()).error).toMatchObject({
      status: 403,
      code: 'insufficient_aal',
    });
    expect((await aal1.auth.passkey.delete({ passkeyId })).error).toMatchObject({ status: 403 });
    // The aal2 session may.
    expect((await sb.auth.passkey.startRegistration()).error).toBeNull();
    expect((await sb.auth.passkey.delete({ passkeyId })).error).toBeNull();
  });
});

describe('switched off (the default)', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  });
  afterAll(async () => {
    await off?.close();
  });

  it("every passkey endpoint answers GoTrue's 404 passkey_disabled", async () => {
    const sb = off.client();
    await sb.auth.signUp({ email: uniqueEmail('pk-off'), password: PASSWORD });
    const errors = [
      (await sb.auth.passkey.startRegistration()).error,
      (
        await sb.auth.passkey.verifyRegistration({
          challengeId: crypto.randomUUID(),
          credential: {} as never,
        })
      ).error,
      (await sb.auth.passkey.startAuthentication()).error,
      (
        await sb.auth.passkey.verifyAuthentication({
          challengeId: crypto.randomUUID(),
          credential: {} as never,
        })
      ).error,
      (await sb.auth.passkey.list()).error,
      (await sb.auth.passkey.update({ passkeyId: crypto.randomUUID(), friendlyName: 'n' })).error,
      (await sb.auth.passkey.delete({ passkeyId: crypto.randomUUID() })).error,
    ];
    for (const error of errors)
      expect(error).toMatchObject({
        status: 404,
        code: 'passkey_disabled',
        message: 'Passkeys are disabled',
      });
  });
});
