// Issue 22, High: a password alone must not reach aal2 through an unverified factor. While a user has
// a verified factor, an aal1 session may not enrol, challenge or verify an unverified factor, nor
// unenrol anything; users without verified factors enrol as before; abandoned enrolments expire and
// are swept. WebAuthn runs against a software authenticator (support/virtual-authenticator.ts).
import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredFactors } from '../../../src/features/mfa/factors.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';
import { VirtualAuthenticator } from '../../support/virtual-authenticator.ts';

const PASSWORD = 'Namaa-aal-Pass-5830';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
});
afterAll(async () => {
  await t?.close();
});

const totp = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

/** The raw API with a user's access token (the WebAuthn JSON is sent as a browser client would). */
async function call(server: TestServer, token: string, method: string, path: string, body?: unknown) {
  const res = await server.api(path, {
    method,
    headers: { authorization: `Bearer ${token}` },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read nested fields of GoTrue's JSON answers
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function signUp(server: TestServer): Promise<{ sb: SupabaseClient; email: string; token: string }> {
  const sb = server.client();
  const email = uniqueEmail('aal');
  const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  return { sb, email, token: data.session?.access_token as string };
}

/** A second device that knows only the password: an aal1 session. */
async function passwordOnly(server: TestServer, email: string): Promise<string> {
  const { data, error } = await server.client().auth.signInWithPassword({ email, password: PASSWORD });
  expect(error).toBeNull();
  const token = data.session?.access_token as string;
  expect(decodeJwt(token).aal).toBe('aal1');
  return token;
}

async function enrolVerifiedTotp(server: TestServer, token: string) {
  const enrolled = await call(server, token, 'POST', '/factors', {
    factor_type: 'totp',
    friendly_name: 'app',
  });
  expect(enrolled.status).toBe(200);
  const id = enrolled.body.id as string;
  const secret = enrolled.body.totp.secret as string;
  const ch = await call(server, token, 'POST', `/factors/${id}/challenge`, {});
  const v = await call(server, token, 'POST', `/factors/${id}/verify`, {
    challenge_id: ch.body.id,
    code: await totp(secret),
  });
  expect(v.status).toBe(200);
  return { id, secret, aal2Token: v.body.access_token as string };
}

async function factorsOf(server: TestServer, token: string) {
  const me = await call(server, token, 'GET', '/user');
  return (me.body.factors ?? []) as Array<{ id: string; status: string; factor_type: string }>;
}

describe('a verified factor exists: an aal1 session cannot reach aal2 through an unverified one', () => {
  it('WebAuthn: the abandoned enrolment cannot be challenged or verified with an attacker key, nothing unenrolled', async () => {
    const { email, token } = await signUp(t);
    const owner = await enrolVerifiedTotp(t, token);
    // The owner starts a WebAuthn enrolment and abandons it after the challenge.
    const pending = await call(t, owner.aal2Token, 'POST', '/factors', {
      factor_type: 'webauthn',
      friendly_name: 'usb key',
    });
    expect(pending.status).toBe(200);
    const ownerChallenge = await call(
      t,
      owner.aal2Token,
      'POST',
      `/factors/${pending.body.id}/challenge`,
      {},
    );
    expect(ownerChallenge.status).toBe(200);
    expect(ownerChallenge.body.webauthn.type).toBe('create');

    // The attacker knows the password only, and sees the pending factor in GET /user.
    const attacker = await passwordOnly(t, email);
    const listed = await factorsOf(t, attacker);
    expect(listed).toContainEqual(expect.objectContaining({ id: pending.body.id, status: 'unverified' }));

    const challenge = await call(t, attacker, 'POST', `/factors/${pending.body.id}/challenge`, {});
    expect(challenge).toMatchObject({
      status: 403,
      body: { error_code: 'insufficient_aal', msg: 'AAL2 required to verify a new factor' },
    });
    // Nor can the attacker answer a challenge the owner left open, with their own key.
    const theirKey = new VirtualAuthenticator(new URL(t.config.SITE_URL).origin);
    const verify = await call(t, attacker, 'POST', `/factors/${pending.body.id}/verify`, {
      challenge_id: ownerChallenge.body.id,
      webauthn: {
        type: 'create',
        credential_response: theirKey.create(ownerChallenge.body.webauthn.credential_options.publicKey),
      },
    });
    expect(verify).toMatchObject({ status: 403, body: { error_code: 'insufficient_aal' } });

    // Without aal2 the attacker removes nothing and changes no password.
    const dropTotp = await call(t, attacker, 'DELETE', `/factors/${owner.id}`);
    expect(dropTotp).toMatchObject({ status: 422, body: { error_code: 'insufficient_aal' } });
    const dropPending = await call(t, attacker, 'DELETE', `/factors/${pending.body.id}`);
    expect(dropPending).toMatchObject({ status: 422, body: { error_code: 'insufficient_aal' } });
    const password = await call(t, attacker, 'PUT', '/user', { password: 'Attacker-Chosen-Pass-1' });
    expect(password).toMatchObject({ status: 401, body: { error_code: 'insufficient_aal' } });
    const enrol = await call(t, attacker, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'mine' });
    expect(enrol).toMatchObject({ status: 403, body: { error_code: 'insufficient_aal' } });
    expect((await factorsOf(t, owner.aal2Token)).map((f) => f.id).sort()).toEqual(
      [owner.id, pending.body.id].sort(),
    );

    // The owner, at aal2, still finishes the enrolment with their own key.
    const ownKey = new VirtualAuthenticator(new URL(t.config.SITE_URL).origin);
    const done = await call(t, owner.aal2Token, 'POST', `/factors/${pending.body.id}/verify`, {
      challenge_id: ownerChallenge.body.id,
      webauthn: {
        type: 'create',
        credential_response: ownKey.create(ownerChallenge.body.webauthn.credential_options.publicKey),
      },
    });
    expect(done.status).toBe(200);
    expect(decodeJwt(done.body.access_token).aal).toBe('aal2');
  });

  it('TOTP: a leaked secret of an unverified factor does not verify from aal1', async () => {
    const { email, token } = await signUp(t);
    const owner = await enrolVerifiedTotp(t, token);
    const second = await call(t, owner.aal2Token, 'POST', '/factors', {
      factor_type: 'totp',
      friendly_name: 'backup phone',
    });
    expect(second.status).toBe(200);
    const leakedSecret = second.body.totp.secret as string;
    const ownerChallenge = await call(t, owner.aal2Token, 'POST', `/factors/${second.body.id}/challenge`, {});
    expect(ownerChallenge.status).toBe(200);

    const attacker = await passwordOnly(t, email);
    const challenge = await call(t, attacker, 'POST', `/factors/${second.body.id}/challenge`, {});
    expect(challenge).toMatchObject({ status: 403, body: { error_code: 'insufficient_aal' } });
    const verify = await call(t, attacker, 'POST', `/factors/${second.body.id}/verify`, {
      challenge_id: ownerChallenge.body.id,
      code: await totp(leakedSecret),
    });
    expect(verify).toMatchObject({ status: 403, body: { error_code: 'insufficient_aal' } });
    expect(decodeJwt(attacker).aal).toBe('aal1');
    expect(await factorsOf(t, owner.aal2Token)).toContainEqual(
      expect.objectContaining({ id: second.body.id, status: 'unverified' }),
    );
    const dropTotp = await call(t, attacker, 'DELETE', `/factors/${owner.id}`);
    expect(dropTotp).toMatchObject({ status: 422, body: { error_code: 'insufficient_aal' } });
  });

  it('proving a verified factor from aal1 is still the normal second step (TOTP and WebAuthn)', async () => {
    const { email, token } = await signUp(t);
    const owner = await enrolVerifiedTotp(t, token);
    const key = new VirtualAuthenticator(new URL(t.config.SITE_URL).origin);
    const wa = await call(t, owner.aal2Token, 'POST', '/factors', {
      factor_type: 'webauthn',
      friendly_name: 'k',
    });
    const create = await call(t, owner.aal2Token, 'POST', `/factors/${wa.body.id}/challenge`, {});
    const registered = await call(t, owner.aal2Token, 'POST', `/factors/${wa.body.id}/verify`, {
      challenge_id: create.body.id,
      webauthn: {
        type: 'create',
        credential_response: key.create(create.body.webauthn.credential_options.publicKey),
      },
    });
    expect(registered.status).toBe(200);

    // A later sign-in with the password, then the security key: aal2 with amr mfa/webauthn.
    const aal1 = await passwordOnly(t, email);
    const request = await call(t, aal1, 'POST', `/factors/${wa.body.id}/challenge`, {});
    expect(request.status).toBe(200);
    expect(request.body.webauthn.type).toBe('request');
    const asserted = await call(t, aal1, 'POST', `/factors/${wa.body.id}/verify`, {
      challenge_id: request.body.id,
      webauthn: {
        type: 'request',
        credential_response: key.get(request.body.webauthn.credential_options.publicKey),
      },
    });
    expect(asserted.status).toBe(200);
    const claims = decodeJwt(asserted.body.access_token) as { aal: string; amr: Array<{ method: string }> };
    expect(claims.aal).toBe('aal2');
    expect(claims.amr[0]?.method).toBe('mfa/webauthn');

    // Another key's assertion for the same factor fails.
    const again = await passwordOnly(t, email);
    const r2 = await call(t, again, 'POST', `/factors/${wa.body.id}/challenge`, {});
    const stranger = new VirtualAuthenticator(new URL(t.config.SITE_URL).origin);
    const forged = await call(t, again, 'POST', `/factors/${wa.body.id}/verify`, {
      challenge_id: r2.body.id,
      webauthn: {
        type: 'request',
        credential_response: stranger.get(r2.body.webauthn.credential_options.publicKey),
      },
    });
    expect(forged).toMatchObject({ status: 422, body: { error_code: 'mfa_verification_failed' } });

    // And TOTP from aal1, then unenrolling from the aal2 session works.
    const totpAal1 = await passwordOnly(t, email);
    const ch = await call(t, totpAal1, 'POST', `/factors/${owner.id}/challenge`, {});
    const v = await call(t, totpAal1, 'POST', `/factors/${owner.id}/verify`, {
      challenge_id: ch.body.id,
      code: await generate({ secret: owner.secret, epoch: Math.floor(Date.now() / 1000) + 30 }),
    });
    expect(v.status).toBe(200);
    const removed = await call(t, v.body.access_token, 'DELETE', `/factors/${wa.body.id}`);
    expect(removed.status).toBe(200);
  });
});

describe('users without a verified factor enrol as before', () => {
  it('an aal1 session enrols and verifies a WebAuthn factor, and unenrols an unverified factor', async () => {
    const { token } = await signUp(t);
    expect(decodeJwt(token).aal).toBe('aal1');
    const spare = await call(t, token, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'spare' });
    expect(spare.status).toBe(200);
    expect((await call(t, token, 'DELETE', `/factors/${spare.body.id}`)).status).toBe(200);

    const key = new VirtualAuthenticator(new URL(t.config.SITE_URL).origin);
    const wa = await call(t, token, 'POST', '/factors', { factor_type: 'webauthn', friendly_name: 'key' });
    expect(wa.status).toBe(200);
    const ch = await call(t, token, 'POST', `/factors/${wa.body.id}/challenge`, {});
    expect(ch.status).toBe(200);
    const v = await call(t, token, 'POST', `/factors/${wa.body.id}/verify`, {
      challenge_id: ch.body.id,
      webauthn: {
        type: 'create',
        credential_response: key.create(ch.body.webauthn.credential_options.publicKey),
      },
    });
    expect(v.status).toBe(200);
    expect(decodeJwt(v.body.access_token).aal).toBe('aal2');
    expect(await factorsOf(t, v.body.access_token)).toEqual([
      expect.objectContaining({ id: wa.body.id, status: 'verified', factor_type: 'webauthn' }),
    ]);
  });

  it('an aal1 session enrols and verifies TOTP', async () => {
    const { token } = await signUp(t);
    const { aal2Token } = await enrolVerifiedTotp(t, token);
    expect(decodeJwt(aal2Token).aal).toBe('aal2');
  });
});

describe('abandoned enrolments expire (MFA_FACTOR_EXPIRY)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ MAILER_AUTOCONFIRM: 'true', MFA_FACTOR_EXPIRY: '2' });
  });
  afterAll(async () => {
    await s?.close();
  });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('an expired unverified factor is refused and gone; the sweep deletes the others', async () => {
    const a = await signUp(s);
    const b = await signUp(s);
    const stale = await call(s, a.token, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'a' });
    const swept = await call(s, b.token, 'POST', '/factors', { factor_type: 'webauthn', friendly_name: 'b' });
    const verified = await enrolVerifiedTotp(s, b.token);
    expect(stale.status).toBe(200);
    expect(swept.status).toBe(200);
    await wait(2_300);
    const c = await signUp(s);
    const fresh = await call(s, c.token, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'c' });
    expect(fresh.status).toBe(200);

    // Touched after expiry: refused as not found, and deleted.
    const late = await call(s, a.token, 'POST', `/factors/${stale.body.id}/challenge`, {});
    expect(late).toMatchObject({ status: 404, body: { error_code: 'mfa_factor_not_found' } });
    expect(await factorsOf(s, a.token)).toEqual([]);

    // Never touched again: the sweep removes it, and keeps verified factors and fresh enrolments.
    expect(await factorsOf(s, verified.aal2Token)).toContainEqual(
      expect.objectContaining({ id: swept.body.id }),
    );
    expect(await sweepExpiredFactors(s.server.deps)).toBeGreaterThanOrEqual(1);
    expect((await factorsOf(s, verified.aal2Token)).map((f) => f.id)).toEqual([verified.id]);
    expect((await factorsOf(s, c.token)).map((f) => f.id)).toEqual([fresh.body.id]);
  });
});
