// MFA (issue 4) through the official client: TOTP enrol/challenge/verify to aal2, replay refusal,
// GoTrue's factor rules, the phone factor via the development SMS sender, and aal on PUT /user.
import type { SupabaseClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mfaChallenges } from '../../../src/db/schema.ts';
import { awayFromWindowEdge } from '../../support/rate-window.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', MFA_PHONE_MAX_FREQUENCY: '0' });
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Namaa-mfa-Pass-9481';

async function signedIn(email = uniqueEmail('mfa')): Promise<{ sb: SupabaseClient; email: string }> {
  const sb = t.client();
  const { error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  return { sb, email };
}

async function totpCode(secret: string, offsetSec = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSec });
}

/** Enrols and verifies a TOTP factor; returns the factor id and secret (the client is now aal2). */
async function enrolTotp(sb: SupabaseClient, friendlyName?: string) {
  const { data, error } = await sb.auth.mfa.enroll({
    factorType: 'totp',
    ...(friendlyName ? { friendlyName } : {}),
  });
  expect(error).toBeNull();
  const factor = data as { id: string; totp: { secret: string } };
  const v = await sb.auth.mfa.challengeAndVerify({
    factorId: factor.id,
    code: await totpCode(factor.totp.secret),
  });
  expect(v.error).toBeNull();
  return { id: factor.id, secret: factor.totp.secret };
}

describe('TOTP factor', () => {
  it('enrols (secret, otpauth URI, SVG QR), verifies to aal2 with amr totp, and refresh keeps it', async () => {
    const { sb, email } = await signedIn();
    const other = t.client();
    await other.auth.signInWithPassword({ email, password: PASSWORD }); // a second aal1 session

    const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone app' });
    expect(error).toBeNull();
    if (data?.type !== 'totp') throw new Error('expected totp');
    expect(data.friendly_name).toBe('Phone app');
    expect(data.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(data.totp.uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(decodeURIComponent(uri.pathname)).toContain(email);
    expect(uri.searchParams.get('secret')).toBe(data.totp.secret);
    expect(uri.searchParams.get('issuer')).toBe(new URL(t.url).host);
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(data.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg')).toBe(true);

    const listed = await sb.auth.mfa.listFactors();
    expect(listed.data?.all).toEqual([
      expect.objectContaining({ id: data.id, status: 'unverified', factor_type: 'totp' }),
    ]);
    expect(listed.data?.totp).toEqual([]);
    const before = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });

    const events: string[] = [];
    sb.auth.onAuthStateChange((e) => {
      events.push(e);
    });
    const ch = await sb.auth.mfa.challenge({ factorId: data.id });
    expect(ch.error).toBeNull();
    expect(ch.data?.type).toBe('totp');
    expect(ch.data?.expires_at).toBeGreaterThan(Date.now() / 1000 + 200);
    const wrong = await sb.auth.mfa.verify({
      factorId: data.id,
      challengeId: ch.data?.id as string,
      code: '000000',
    });
    expect(wrong.error).toMatchObject({
      status: 422,
      code: 'mfa_verification_failed',
      message: 'Invalid TOTP code entered',
    });

    const code = await totpCode(data.totp.secret);
    const ok = await sb.auth.mfa.verify({ factorId: data.id, challengeId: ch.data?.id as string, code });
    expect(ok.error).toBeNull();
    const claims = decodeJwt(ok.data?.access_token as string) as {
      aal: string;
      amr: Array<{ method: string }>;
    };
    expect(claims.aal).toBe('aal2');
    expect(claims.amr.map((a) => a.method)).toEqual(['totp', 'password']);
    expect(events).toContain('MFA_CHALLENGE_VERIFIED');
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    expect((await sb.auth.mfa.listFactors()).data?.totp).toHaveLength(1);

    // Single-use challenge; the same code is refused even in a new challenge (replay).
    const again = await sb.auth.mfa.verify({ factorId: data.id, challengeId: ch.data?.id as string, code });
    expect(again.error).toMatchObject({ status: 422, code: 'mfa_factor_not_found' });
    const ch2 = await sb.auth.mfa.challenge({ factorId: data.id });
    const replay = await sb.auth.mfa.verify({ factorId: data.id, challengeId: ch2.data?.id as string, code });
    expect(replay.error?.code).toBe('mfa_verification_failed');

    // Refresh keeps aal2 and amr.
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const rc = decodeJwt(refreshed.data.session?.access_token as string) as {
      aal: string;
      amr: Array<{ method: string }>;
    };
    expect(rc.aal).toBe('aal2');
    expect(rc.amr[0]?.method).toBe('totp');

    // The user's other aal1 session was ended by the verification.
    const gone = await other.auth.getUser();
    expect(gone.error?.name).toBe('AuthSessionMissingError');
  });

  it('accepts a code from the previous 30 s step (±1 step skew) but not two steps away', async () => {
    // Stay clear of a step boundary so "previous step" means the same thing here and on the server.
    const intoStep = (Date.now() / 1000) % 30;
    if (intoStep > 27) await new Promise((r) => setTimeout(r, (31 - intoStep) * 1000));
    const { sb } = await signedIn();
    const { data } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const f = data as { id: string; totp: { secret: string } };
    const far = await sb.auth.mfa.challengeAndVerify({
      factorId: f.id,
      code: await totpCode(f.totp.secret, -90),
    });
    expect(far.error?.code).toBe('mfa_verification_failed');
    const near = await sb.auth.mfa.challengeAndVerify({
      factorId: f.id,
      code: await totpCode(f.totp.secret, -30),
    });
    expect(near.error).toBeNull();
  });

  it('enforces the aal2 rules for enrolling, unenrolling and PUT /user', async () => {
    const { sb, email } = await signedIn();
    const factor = await enrolTotp(sb, 'first');
    // A fresh password sign-in is aal1 while the user has a verified factor.
    const low = t.client();
    await low.auth.signInWithPassword({ email, password: PASSWORD });
    expect((await low.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({
      currentLevel: 'aal1',
      nextLevel: 'aal2',
    });
    const enrol = await low.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'second' });
    expect(enrol.error).toMatchObject({ status: 403, code: 'insufficient_aal' });
    const unenrol = await low.auth.mfa.unenroll({ factorId: factor.id });
    expect(unenrol.error).toMatchObject({ status: 422, code: 'insufficient_aal' });
    const pw = await low.auth.updateUser({ password: 'Another-Pass-7731' });
    expect(pw.error).toMatchObject({ status: 401, code: 'insufficient_aal' });
    const mail = await low.auth.updateUser({ email: uniqueEmail('new') });
    expect(mail.error).toMatchObject({ status: 401, code: 'insufficient_aal' });
    // Metadata needs no aal2.
    expect((await low.auth.updateUser({ data: { plan: 'pro' } })).error).toBeNull();

    // aal2: another factor (name conflict first), then unenrolment answers {id}.
    const dup = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'first' });
    expect(dup.error).toMatchObject({ status: 422, code: 'mfa_factor_name_conflict' });
    expect((await sb.auth.updateUser({ password: 'Another-Pass-7731' })).error).toBeNull();
    const removed = await sb.auth.mfa.unenroll({ factorId: factor.id });
    expect(removed.error).toBeNull();
    expect(removed.data).toEqual({ id: factor.id });
    const user = await sb.auth.getUser();
    expect(user.data.user?.factors).toBeUndefined(); // omitted when empty
  });

  it('answers GoTrue errors for unknown, foreign and malformed ids, expiry, IP binding and the factor limit', async () => {
    const { sb } = await signedIn();
    const { sb: stranger } = await signedIn();
    const { data } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const f = data as { id: string; totp: { secret: string } };

    const notUuid = await sb.auth.mfa.challenge({ factorId: '../../etc/passwd' });
    expect(notUuid.error?.status).toBe(404);
    const foreign = await stranger.auth.mfa.challenge({ factorId: f.id });
    expect(foreign.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
    const unknownChallenge = await sb.auth.mfa.verify({
      factorId: f.id,
      challengeId: '00000000-0000-4000-8000-000000000000',
      code: '123456',
    });
    expect(unknownChallenge.error).toMatchObject({ status: 422, code: 'mfa_factor_not_found' });

    const db = t.server.deps.db;
    const expired = await sb.auth.mfa.challenge({ factorId: f.id });
    await db
      .update(mfaChallenges)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(mfaChallenges.id, expired.data?.id as string));
    const late = await sb.auth.mfa.verify({
      factorId: f.id,
      challengeId: expired.data?.id as string,
      code: await totpCode(f.totp.secret),
    });
    expect(late.error).toMatchObject({ status: 422, code: 'mfa_challenge_expired' });

    const moved = await sb.auth.mfa.challenge({ factorId: f.id });
    await db
      .update(mfaChallenges)
      .set({ ipAddress: '203.0.113.9' })
      .where(eq(mfaChallenges.id, moved.data?.id as string));
    const elsewhere = await sb.auth.mfa.verify({
      factorId: f.id,
      challengeId: moved.data?.id as string,
      code: await totpCode(f.totp.secret),
    });
    expect(elsewhere.error).toMatchObject({ status: 422, code: 'mfa_ip_address_mismatch' });

    const bad = await sb.auth.mfa.enroll({ factorType: 'sms' as 'totp' });
    expect(bad.error).toMatchObject({ status: 400, code: 'validation_failed' });
    for (let i = 1; i < 10; i++)
      expect((await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: `f${i}` })).error).toBeNull();
    const eleventh = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'f10' });
    expect(eleventh.error).toMatchObject({ status: 422, code: 'too_many_enrolled_mfa_factors' });
  });

  it('refuses hostile bodies with 4xx in the GoTrue shape', async () => {
    const { sb } = await signedIn();
    const token = (await sb.auth.getSession()).data.session?.access_token as string;
    const auth = { authorization: `Bearer ${token}`, 'X-Supabase-Api-Version': '2024-01-01' };
    for (const body of [
      '[]',
      '{"factor_type": 5}',
      `{"factor_type":"totp","friendly_name":"${'x'.repeat(5000)}"}`,
      '{bad',
    ]) {
      const res = await t.api('/factors', { method: 'POST', headers: auth, body });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    const noAuth = await t.api('/factors', { method: 'POST', body: '{"factor_type":"totp"}' });
    expect(noAuth.status).toBe(401);
    const enrolled = (await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'x' })).data as {
      id: string;
    };
    const ch = await sb.auth.mfa.challenge({ factorId: enrolled.id });
    const res = await t.api(`/factors/${enrolled.id}/verify`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ challenge_id: ch.data?.id, code: { $gt: '' } }),
    });
    expect(res.status).toBe(400);
  });
});

describe('phone factor', () => {
  it('enrols an E.164 number, sends the code through the SMS sender (dev mailbox) and verifies to aal2', async () => {
    const { sb } = await signedIn();
    const invalid = await sb.auth.mfa.enroll({ factorType: 'phone', phone: '12ab' });
    expect(invalid.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const { data, error } = await sb.auth.mfa.enroll({ factorType: 'phone', phone, friendlyName: 'mobile' });
    expect(error).toBeNull();
    const factor = data as { id: string; type: string; phone: string };
    expect(factor.type).toBe('phone');

    const ch = await sb.auth.mfa.challenge({ factorId: factor.id, channel: 'sms' });
    expect(ch.error).toBeNull();
    const box = await t.api(`/_dev/mailbox.json?to=${encodeURIComponent(phone)}`);
    const [sms] = (await box.json()) as Array<{ subject: string; text: string }>;
    expect(sms?.subject).toBe(`SMS to ${phone}`);
    const code = sms?.text.match(/\b(\d{6})\b/)?.[1] as string;
    const wrong = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: ch.data?.id as string,
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });
    const ok = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: ch.data?.id as string, code });
    expect(ok.error).toBeNull();
    const claims = decodeJwt(ok.data?.access_token as string) as {
      aal: string;
      amr: Array<{ method: string }>;
    };
    expect(claims.aal).toBe('aal2');
    expect(claims.amr[0]?.method).toBe('mfa/phone');
    // A code belongs to its challenge.
    const ch2 = await sb.auth.mfa.challenge({ factorId: factor.id });
    const reuse = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: ch2.data?.id as string,
      code,
    });
    expect(reuse.error?.code).toBe('mfa_verification_failed');
  });
});

describe('phone factor resend floor (MFA_PHONE_MAX_FREQUENCY)', () => {
  // Its own server: the suite above turns the floor off.
  let floored: TestServer;
  beforeAll(async () => {
    floored = await startTestServer({ MAILER_AUTOCONFIRM: 'true', MFA_PHONE_MAX_FREQUENCY: '60' });
  });
  afterAll(async () => {
    await floored?.close();
  });

  it('lets exactly one of ten parallel challenges through and sends exactly one SMS', async () => {
    const sb = floored.client();
    const { error } = await sb.auth.signUp({ email: uniqueEmail('mfa-floor'), password: PASSWORD });
    expect(error).toBeNull();
    const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'phone', phone });
    expect(enrolled.error).toBeNull();
    const factorId = (enrolled.data as { id: string }).id;

    const results = await Promise.all(
      Array.from({ length: 10 }, () => sb.auth.mfa.challenge({ factorId, channel: 'sms' })),
    );
    expect(results.filter((r) => r.error === null)).toHaveLength(1);
    for (const r of results.filter((r) => r.error !== null))
      expect(r.error).toMatchObject({ status: 429, code: 'over_sms_send_rate_limit' });
    const box = await floored.api(`/_dev/mailbox.json?to=${encodeURIComponent(phone)}`);
    expect((await box.json()) as unknown[]).toHaveLength(1);

    // And later on, within the floor, still refused with the seconds left.
    const again = await floored.api(`/factors/${factorId}/challenge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(await sb.auth.getSession()).data.session?.access_token}` },
      body: '{}',
    });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });
});

describe('global SMS budget (RATE_LIMIT_SMS_SENT)', () => {
  let budgeted: TestServer;
  beforeAll(async () => {
    budgeted = await startTestServer({
      MAILER_AUTOCONFIRM: 'true',
      MFA_PHONE_MAX_FREQUENCY: '0',
      RATE_LIMIT_SMS_SENT: '2',
    });
  });
  afterAll(async () => {
    await budgeted?.close();
  });

  it('sends at most the hourly budget across all factors, then answers 429', async () => {
    await awayFromWindowEdge(3600, 60_000);
    const phones: string[] = [];
    const results = [];
    for (let i = 0; i < 3; i++) {
      const sb = budgeted.client();
      expect(
        (await sb.auth.signUp({ email: uniqueEmail('sms-budget'), password: PASSWORD })).error,
      ).toBeNull();
      const phone = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
      phones.push(phone);
      const enrolled = await sb.auth.mfa.enroll({ factorType: 'phone', phone });
      expect(enrolled.error).toBeNull();
      results.push(
        await sb.auth.mfa.challenge({ factorId: (enrolled.data as { id: string }).id, channel: 'sms' }),
      );
    }
    expect(results.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok', 'over_sms_send_rate_limit']);
    const delivered = await Promise.all(
      phones.map(
        async (p) =>
          ((await (await budgeted.api(`/_dev/mailbox.json?to=${encodeURIComponent(p)}`)).json()) as unknown[])
            .length,
      ),
    );
    expect(delivered).toEqual([1, 1, 0]);
  });
});
