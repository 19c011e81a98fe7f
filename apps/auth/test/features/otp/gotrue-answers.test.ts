// The two GoTrue answers the service gives only when asked (issue #17): OTP_REVEAL_UNKNOWN_USERS
// (POST /otp for an unknown address or number that may not be created: GoTrue's 422 otp_disabled /
// signup_disabled instead of the enumeration-safe {}) and SMS_PROVIDER=none (no SMS at all: GoTrue's
// "Unable to get SMS provider", test numbers still work, phone factors off). The defaults are covered
// by otp.test.ts and phone.test.ts.
import { createClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
const TEST_NUMBER = '15550002222';
let n = 0;
const freshPhone = () => `+1555${String(Date.now() % 1_000_000).padStart(6, '0')}${n++ % 10}`;

beforeAll(async () => {
  t = await startTestServer({
    OTP_REVEAL_UNKNOWN_USERS: 'true',
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'none',
    SMS_MAX_FREQUENCY: '0',
    SMS_TEST_OTP: `${TEST_NUMBER}:515151`,
    RATE_LIMIT_SMS_SENT: '100000',
  });
});
afterAll(async () => {
  await t?.close();
});

const rowByEmail = async (email: string) =>
  (await t.server.deps.db.select().from(users).where(eq(users.email, email)))[0];

describe('OTP_REVEAL_UNKNOWN_USERS', () => {
  it("an unknown address with shouldCreateUser false gets GoTrue's 422 otp_disabled; nothing is created or sent", async () => {
    const email = uniqueEmail('reveal-nobody');
    const { data, error } = await t
      .client()
      .auth.signInWithOtp({ email, options: { shouldCreateUser: false } });
    expect(error).toMatchObject({
      status: 422,
      code: 'otp_disabled',
      message: 'Signups not allowed for otp',
    });
    expect(data).toEqual({ user: null, session: null });
    expect(await rowByEmail(email)).toBeUndefined();
    await expect(t.inbox.waitFor(email, undefined, 500)).rejects.toThrow();
  });

  it('a known address with shouldCreateUser false still gets its link', async () => {
    const email = uniqueEmail('reveal-known');
    expect((await t.client().auth.signInWithOtp({ email })).error).toBeNull();
    await t.inbox.waitFor(email);
    expect(
      (await t.client().auth.signInWithOtp({ email, options: { shouldCreateUser: false } })).error,
    ).toBeNull();
    await t.inbox.waitFor(email);
  });

  it('with sign-ups closed an unknown address gets 422 signup_disabled, and otp_disabled first when create_user is false', async () => {
    t.config.DISABLE_SIGNUP = true;
    try {
      const email = uniqueEmail('reveal-closed');
      const open = await t.api('/otp', { method: 'POST', body: JSON.stringify({ email }) });
      expect(open.status).toBe(422);
      expect(await open.json()).toMatchObject({ error_code: 'signup_disabled' });
      const noCreate = await t.api('/otp', {
        method: 'POST',
        body: JSON.stringify({ email, create_user: false }),
      });
      expect(noCreate.status).toBe(422);
      expect(await noCreate.json()).toMatchObject({ error_code: 'otp_disabled' });
      expect(await rowByEmail(email)).toBeUndefined();
    } finally {
      t.config.DISABLE_SIGNUP = false;
    }
  });

  it('an unknown number with shouldCreateUser false gets 422 otp_disabled', async () => {
    const { error } = await t
      .client()
      .auth.signInWithOtp({ phone: freshPhone(), options: { shouldCreateUser: false } });
    expect(error).toMatchObject({ status: 422, code: 'otp_disabled' });
  });
});

describe('SMS_PROVIDER=none', () => {
  it("a code for an ordinary number is GoTrue's sms_send_failed 'Unable to get SMS provider', through PKCE too", async () => {
    const phone = freshPhone();
    const res = await t.api('/otp', { method: 'POST', body: JSON.stringify({ phone }) });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      error_code: 'sms_send_failed',
      msg: 'Unable to get SMS provider',
    });
    const pkce = createClient(t.url, t.anonKey, {
      auth: { flowType: 'pkce', persistSession: false, autoRefreshToken: false },
    });
    const { data, error } = await pkce.auth.signInWithOtp({ phone: freshPhone() });
    // supabase-js reports every 5xx as a retryable fetch error carrying the message (as with GoTrue).
    expect(error).toMatchObject({ status: 500, message: 'Unable to get SMS provider' });
    expect(data).toEqual({ user: null, session: null });
  });

  it('a number of SMS_TEST_OTP signs in with its fixed code (nothing is sent)', async () => {
    const sb = t.client();
    expect((await sb.auth.signInWithOtp({ phone: `+${TEST_NUMBER}` })).error).toBeNull();
    const { data, error } = await sb.auth.verifyOtp({
      phone: `+${TEST_NUMBER}`,
      token: '515151',
      type: 'sms',
    });
    expect(error).toBeNull();
    expect(data.user?.phone).toBe(TEST_NUMBER);
  });

  it('/settings reports no SMS provider, and a phone factor cannot be enrolled', async () => {
    const settings = await (await t.api('/settings')).json();
    expect(settings.sms_provider).toBe('');
    const sb = t.client();
    const email = uniqueEmail('none-factor');
    expect((await sb.auth.signUp({ email, password: 'None-Factor-Pass-4471' })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    const { error: verifyError } = await sb.auth.verifyOtp({
      email,
      token: mail.code as string,
      type: 'signup',
    });
    expect(verifyError).toBeNull();
    const { error } = await sb.auth.mfa.enroll({ factorType: 'phone', phone: freshPhone() });
    expect(error).toMatchObject({ code: 'mfa_phone_enroll_not_enabled' });
  });
});
