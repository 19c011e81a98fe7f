// Phone sign-in with SMS codes (issue #17, item 4) through the official client and a recording SMS
// sender: off by default with GoTrue's answers, E.164 validation, code single use, 20 parallel
// verifies, create_user, SMS_TEST_OTP, the per-number frequency, and GoTrue's verify answers.
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, users } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

let t: TestServer;
let nextNumber = 0;
/** A number never used before in this file (E.164, a reserved-for-fiction US range). */
const freshPhone = () => `+1555${String(Date.now() % 1_000_000).padStart(6, '0')}${nextNumber++ % 10}`;

beforeAll(async () => {
  t = await startTestServer({
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'dev',
    SMS_MAX_FREQUENCY: '0',
    SMS_TEST_OTP: '15550001111:424242',
    RATE_LIMIT_SMS_SENT: '100000',
  });
});
afterAll(async () => {
  await t?.close();
});

/** The code of the newest SMS to `phone` (the dev sender writes it to the outbox as kind 'sms'). */
async function smsCode(phone: string): Promise<string> {
  const rows = await t.server.deps.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, phone));
  const newest = rows.sort((a, b) => +b.createdAt - +a.createdAt)[0];
  const code = newest?.text?.match(/code is (\d{6})/)?.[1];
  expect(code, `an SMS to ${phone}`).toBeDefined();
  return code as string;
}

describe('phone sign-in', () => {
  it('signInWithOtp({ phone }) creates the account; verifyOtp type sms signs in once and confirms the phone', async () => {
    const phone = freshPhone();
    const sb = t.client();
    const sent = await sb.auth.signInWithOtp({ phone, options: { data: { via: 'sms' } } });
    expect(sent.error).toBeNull();
    expect(sent.data.messageId).toEqual(expect.any(String));
    const code = await smsCode(phone);
    const { data, error } = await sb.auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(error).toBeNull();
    const digits = phone.slice(1);
    expect(data.user).toMatchObject({
      phone: digits,
      email: '',
      user_metadata: { via: 'sms', phone_verified: true },
    });
    expect(data.user?.phone_confirmed_at).toBeTruthy();
    expect(data.user?.identities).toEqual([expect.objectContaining({ provider: 'phone' })]);
    expect(decodeJwt(data.session?.access_token as string)).toMatchObject({
      phone: digits,
      amr: [{ method: 'otp' }],
    });
    const again = await t.client().auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(again.error).toMatchObject({
      status: 403,
      code: 'otp_expired',
      message: 'Token has expired or is invalid',
    });
  });

  it('a wrong code is 403 otp_expired and leaves the right one usable; a newer code replaces the older', async () => {
    const phone = freshPhone();
    await t.client().auth.signInWithOtp({ phone });
    const older = await smsCode(phone);
    await t.client().auth.signInWithOtp({ phone });
    const newer = await smsCode(phone);
    const wrong = String((Number(newer) + 1) % 1_000_000).padStart(6, '0');
    expect((await t.client().auth.verifyOtp({ phone, token: wrong, type: 'sms' })).error).toMatchObject({
      status: 403,
    });
    if (older !== newer)
      expect((await t.client().auth.verifyOtp({ phone, token: older, type: 'sms' })).error).toMatchObject({
        status: 403,
      });
    expect((await t.client().auth.verifyOtp({ phone, token: newer, type: 'sms' })).error).toBeNull();
  });

  it('20 parallel verifies of one code: exactly one session', async () => {
    const phone = freshPhone();
    await t.client().auth.signInWithOtp({ phone });
    const code = await smsCode(phone);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t
          .api('/verify', { method: 'POST', body: JSON.stringify({ type: 'sms', phone, token: code }) })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(19);
  });

  it('shouldCreateUser false: an unknown number answers like a known one and nothing is created or sent', async () => {
    const phone = freshPhone();
    const { data, error } = await t
      .client()
      .auth.signInWithOtp({ phone, options: { shouldCreateUser: false } });
    expect(error).toBeNull();
    expect(data.messageId).toEqual(expect.any(String));
    expect(
      await t.server.deps.db
        .select()
        .from(users)
        .where(eq(users.phone, phone.slice(1))),
    ).toHaveLength(0);
    expect(
      await t.server.deps.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, phone)),
    ).toHaveLength(0);
  });

  it('SMS_TEST_OTP: no SMS, the fixed code signs in and stays valid', async () => {
    const phone = '+15550001111';
    const sent = await t.client().auth.signInWithOtp({ phone });
    expect(sent.data.messageId).toBe('test-otp');
    expect(
      await t.server.deps.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, phone)),
    ).toHaveLength(0);
    for (let i = 0; i < 2; i++)
      expect((await t.client().auth.verifyOtp({ phone, token: '424242', type: 'sms' })).error).toBeNull();
    expect((await t.client().auth.verifyOtp({ phone, token: '000000', type: 'sms' })).error).toMatchObject({
      status: 403,
    });
  });

  it("GoTrue's answers: E.164, channel, unknown number at verify, phone_change", async () => {
    const post = async (path: string, body: unknown) => {
      const res = await t.api(path, { method: 'POST', body: JSON.stringify(body) });
      return [res.status, ((await res.json()) as { error_code?: string; msg?: string }).msg];
    };
    const e164 = 'Invalid phone number format (E.164 required)';
    expect(await post('/otp', { phone: '555-abc' })).toEqual([400, e164]);
    expect(await post('/otp', { phone: '+0123456789' })).toEqual([400, e164]);
    expect(await post('/otp', { phone: freshPhone(), channel: 'carrier-pigeon' })).toEqual([
      400,
      "Invalid channel, supported values are 'sms' or 'whatsapp'",
    ]);
    expect(await post('/verify', { type: 'sms', phone: 'abc', token: '123456' })).toEqual([400, e164]);
    expect(await post('/verify', { type: 'sms', phone: freshPhone(), token: '123456' })).toEqual([
      403,
      'Token has expired or is invalid',
    ]);
    expect(await post('/verify', { type: 'phone_change', phone: freshPhone(), token: '123456' })).toEqual([
      403,
      'Token has expired or is invalid',
    ]);
    const settings = (await (await t.api('/settings')).json()) as { external: { phone: boolean } };
    expect(settings.external.phone).toBe(true);
  });

  it('SMS_MAX_FREQUENCY: a second code to one number within the floor is 429 over_sms_send_rate_limit, across a minute boundary too', async () => {
    t.config.phone.maxFrequency = 60;
    const clock = t.server.deps.clock;
    // Either side of 00:01:00: a window aligned to the clock would have counted them in two minutes.
    let now = Date.UTC(2030, 0, 1, 0, 0, 59, 500);
    t.server.deps.clock = () => new Date(now);
    try {
      const phone = freshPhone();
      expect((await t.client().auth.signInWithOtp({ phone })).error).toBeNull();
      now += 1000;
      expect((await t.client().auth.signInWithOtp({ phone })).error).toMatchObject({
        status: 429,
        code: 'over_sms_send_rate_limit',
        message: 'For security purposes, you can only request this after 59 seconds.',
      });
      now += 59_000;
      expect((await t.client().auth.signInWithOtp({ phone })).error).toBeNull();
    } finally {
      t.config.phone.maxFrequency = 0;
      t.server.deps.clock = clock;
    }
  });
});

describe('switched off (the default)', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer();
  });
  afterAll(async () => {
    await off?.close();
  });

  it('POST /otp with a phone: 400 phone_provider_disabled; /verify still answers as GoTrue', async () => {
    const { error } = await off.client().auth.signInWithOtp({ phone: '+15550002222' });
    expect(error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Unsupported phone provider',
    });
    const res = await off.api('/verify', {
      method: 'POST',
      body: JSON.stringify({ type: 'sms', phone: '+15550002222', token: '123456' }),
    });
    expect(res.status).toBe(403);
    const settings = (await (await off.api('/settings')).json()) as { external: { phone: boolean } };
    expect(settings.external.phone).toBe(false);
  });
});
