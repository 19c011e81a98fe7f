// Phone + password accounts and phone changes (issue #17) through the official client: sign-up
// confirmed by an SMS code (or SMS_AUTOCONFIRM), password sign-in by phone, updateUser({ phone })
// confirmed by verifyOtp type phone_change, /resend of both codes; GoTrue's answers when phone is
// off; enumeration (a confirmed number's repeated sign-up, unknown numbers at sign-in and resend),
// the per-number SMS floor, single use and 20 parallel verifies of one phone_change code.
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, users } from '../../../src/db/schema.ts';
import { signUpConfirmed } from '../../support/email-links.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

let t: TestServer;
let nextNumber = 0;
const base = Date.now() % 100_000;
/** A number never used before in this file (E.164, a reserved-for-fiction US range). */
const freshPhone = () =>
  `+1556${String(base).padStart(5, '0')}${String(nextNumber++ % 100).padStart(2, '0')}`;
const password = 'correct horse battery staple';

beforeAll(async () => {
  t = await startTestServer({
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'dev',
    SMS_MAX_FREQUENCY: '0',
    RATE_LIMIT_SMS_SENT: '100000',
  });
});
afterAll(async () => {
  await t?.close();
});

async function smsRows(phone: string) {
  return t.server.deps.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, phone));
}

/** The code of the newest SMS to `phone` (the dev sender writes it to the outbox). */
async function smsCode(phone: string): Promise<string> {
  const newest = (await smsRows(phone)).sort((a, b) => +b.createdAt - +a.createdAt)[0];
  const code = newest?.text?.match(/ is (\d{6})\./)?.[1];
  expect(code, `an SMS to ${phone}`).toBeDefined();
  return code as string;
}

async function phoneAccount(): Promise<string> {
  const phone = freshPhone();
  expect((await t.client().auth.signUp({ phone, password })).error).toBeNull();
  expect(
    (await t.client().auth.verifyOtp({ phone, token: await smsCode(phone), type: 'sms' })).error,
  ).toBeNull();
  return phone;
}

describe('phone + password sign-up and sign-in', () => {
  it('signUp({ phone, password }) texts a code; the password works only after verifyOtp type sms', async () => {
    const phone = freshPhone();
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({ phone, password, options: { data: { plan: 'pro' } } });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user).toMatchObject({
      phone: phone.slice(1),
      email: '',
      app_metadata: { provider: 'phone', providers: ['phone'] },
      user_metadata: { plan: 'pro' },
    });
    expect(data.user?.phone_confirmed_at).toBeUndefined();
    expect(data.user?.confirmation_sent_at).toEqual(expect.any(String));

    // The right password of an unconfirmed number: GoTrue's "Phone not confirmed"; a wrong one says less.
    expect((await sb.auth.signInWithPassword({ phone, password })).error).toMatchObject({
      status: 400,
      code: 'phone_not_confirmed',
      message: 'Phone not confirmed',
    });
    expect((await sb.auth.signInWithPassword({ phone, password: 'not the password' })).error).toMatchObject({
      status: 400,
      code: 'invalid_credentials',
    });

    const code = await smsCode(phone);
    const verified = await sb.auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone_confirmed_at).toEqual(expect.any(String));
    expect((await t.client().auth.verifyOtp({ phone, token: code, type: 'sms' })).error).toMatchObject({
      status: 403,
      code: 'otp_expired',
    });

    const signedIn = await t.client().auth.signInWithPassword({ phone, password });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.phone).toBe(phone.slice(1));
    expect(decodeJwt(signedIn.data.session?.access_token as string)).toMatchObject({
      phone: phone.slice(1),
      amr: [{ method: 'password' }],
    });
    // GoTrue drops the "+" and spaces of the number it is given.
    const spaced = `${phone.slice(0, 5)} ${phone.slice(5)}`;
    expect((await t.client().auth.signInWithPassword({ phone: spaced, password })).error).toBeNull();
  });

  it('unknown, malformed and wrong: the same invalid_credentials', async () => {
    const known = await phoneAccount();
    for (const phone of [freshPhone(), 'not-a-number', known]) {
      const { error } = await t.client().auth.signInWithPassword({ phone, password: 'wrong password 1' });
      expect(error, phone).toMatchObject({ status: 400, code: 'invalid_credentials' });
    }
  });

  it('a repeated sign-up of a confirmed number answers a made-up user and texts nothing', async () => {
    const phone = await phoneAccount();
    const before = (await smsRows(phone)).length;
    const { data, error } = await t.client().auth.signUp({ phone, password: 'another password 2' });
    expect(error).toBeNull();
    expect(data.user?.identities).toEqual([]);
    const [row] = await t.server.deps.db
      .select()
      .from(users)
      .where(eq(users.phone, phone.slice(1)));
    expect(data.user?.id).not.toBe(row?.id);
    expect((await smsRows(phone)).length).toBe(before);
    // The stranger's password did not replace the owner's.
    expect((await t.client().auth.signInWithPassword({ phone, password })).error).toBeNull();
  });

  it('a pending sign-up is taken over by the newest: its password, its code', async () => {
    const phone = freshPhone();
    await t.client().auth.signUp({ phone, password: 'stranger password 3' });
    const first = await smsCode(phone);
    await t.client().auth.signUp({ phone, password });
    const second = await smsCode(phone);
    if (first !== second)
      expect((await t.client().auth.verifyOtp({ phone, token: first, type: 'sms' })).error).toMatchObject({
        status: 403,
      });
    expect((await t.client().auth.verifyOtp({ phone, token: second, type: 'sms' })).error).toBeNull();
    expect((await t.client().auth.signInWithPassword({ phone, password })).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ phone, password: 'stranger password 3' })).error,
    ).toMatchObject({ code: 'invalid_credentials' });
  });

  it('SMS_AUTOCONFIRM: the sign-up signs in at once; a repeat is 422 user_already_exists', async () => {
    t.config.phone.autoconfirm = true;
    try {
      const phone = freshPhone();
      const { data, error } = await t.client().auth.signUp({ phone, password });
      expect(error).toBeNull();
      expect(data.session?.access_token).toEqual(expect.any(String));
      expect(data.user?.phone_confirmed_at).toEqual(expect.any(String));
      expect(await smsRows(phone)).toHaveLength(0);
      expect((await t.client().auth.signUp({ phone, password })).error).toMatchObject({
        status: 422,
        code: 'user_already_exists',
      });
    } finally {
      t.config.phone.autoconfirm = false;
    }
  });

  it("GoTrue's answers to bad input: weak password first, E.164, both addresses, PKCE, channel", async () => {
    const post = async (body: unknown) => {
      const res = await t.api('/signup', { method: 'POST', body: JSON.stringify(body) });
      return [res.status, ((await res.json()) as { error_code?: string }).error_code];
    };
    expect(await post({ phone: 'abc', password: '123' })).toEqual([422, 'weak_password']);
    expect(await post({ phone: 'abc', password })).toEqual([400, 'validation_failed']);
    expect(await post({ phone: '+15550001', email: 'a@b.co', password })).toEqual([400, 'validation_failed']);
    expect(await post({ phone: freshPhone(), password, code_challenge: 'x'.repeat(43) })).toEqual([
      400,
      'validation_failed',
    ]);
    expect(await post({ phone: freshPhone(), password, channel: 'fax' })).toEqual([400, 'validation_failed']);
    expect(await post({ phone: 42, password })).toEqual([400, 'validation_failed']);
    expect(await post({ phone: '1'.repeat(5000), password })).toEqual([400, 'validation_failed']);
  });

  it('SMS_MAX_FREQUENCY: a second sign-up code to one number within the window is 429, known or not', async () => {
    t.config.phone.maxFrequency = 60;
    try {
      const phone = freshPhone();
      expect((await t.client().auth.signUp({ phone, password })).error).toBeNull();
      expect((await t.client().auth.signUp({ phone, password })).error).toMatchObject({
        status: 429,
        code: 'over_sms_send_rate_limit',
      });
      expect((await t.client().auth.resend({ type: 'sms', phone })).error).toMatchObject({ status: 429 });
    } finally {
      t.config.phone.maxFrequency = 0;
    }
  });
});

describe('resend of phone codes', () => {
  it('type sms re-texts a pending sign-up; a confirmed or unknown number answers alike and gets nothing', async () => {
    const pending = freshPhone();
    await t.client().auth.signUp({ phone: pending, password });
    const first = await smsCode(pending);
    const resent = await t.client().auth.resend({ type: 'sms', phone: pending });
    expect(resent.error).toBeNull();
    expect(resent.data.messageId).toEqual(expect.any(String));
    const second = await smsCode(pending);
    expect((await smsRows(pending)).length).toBe(2);
    if (first !== second)
      expect(
        (await t.client().auth.verifyOtp({ phone: pending, token: first, type: 'sms' })).error,
      ).toMatchObject({ status: 403 });
    expect(
      (await t.client().auth.verifyOtp({ phone: pending, token: second, type: 'sms' })).error,
    ).toBeNull();

    for (const phone of [await phoneAccount(), freshPhone()]) {
      const before = (await smsRows(phone)).length;
      const { data, error } = await t.client().auth.resend({ type: 'sms', phone });
      expect(error).toBeNull();
      expect(data.messageId).toEqual(expect.any(String));
      expect((await smsRows(phone)).length).toBe(before);
    }
  });
});

describe('phone change', () => {
  async function signedInEmailUser() {
    const email = `phone-change-${Date.now()}-${nextNumber++}@example.com`;
    await signUpConfirmed(t, email, password);
    const sb = t.client();
    expect((await sb.auth.signInWithPassword({ email, password })).error).toBeNull();
    return sb;
  }

  it('updateUser({ phone }) holds the number as new_phone; verifyOtp type phone_change applies it once', async () => {
    const sb = await signedInEmailUser();
    const phone = freshPhone();
    const { data, error } = await sb.auth.updateUser({ phone });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ phone: '', new_phone: phone.slice(1) });
    expect((data.user as { phone_change_sent_at?: string }).phone_change_sent_at).toEqual(expect.any(String));
    const code = await smsCode(phone);
    // A sign-in code for the number is not a phone-change code.
    expect((await t.client().auth.verifyOtp({ phone, token: code, type: 'sms' })).error).toMatchObject({
      status: 403,
    });
    const verified = await t.client().auth.verifyOtp({ phone, token: code, type: 'phone_change' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ phone: phone.slice(1) });
    expect(verified.data.user?.phone_confirmed_at).toEqual(expect.any(String));
    expect(verified.data.user?.new_phone).toBeUndefined();
    expect(verified.data.user?.identities?.map((i) => i.provider).sort()).toEqual(['email', 'phone']);
    expect(
      (await t.client().auth.verifyOtp({ phone, token: code, type: 'phone_change' })).error,
    ).toMatchObject({ status: 403, code: 'otp_expired' });
    // The new number signs in with the account's password.
    expect((await t.client().auth.signInWithPassword({ phone, password })).error).toBeNull();
  });

  it('a number another account holds is 422 phone_exists, and nothing is texted', async () => {
    const sb = await signedInEmailUser();
    const taken = await phoneAccount();
    const before = (await smsRows(taken)).length;
    expect((await sb.auth.updateUser({ phone: taken })).error).toMatchObject({
      status: 422,
      code: 'phone_exists',
    });
    expect((await smsRows(taken)).length).toBe(before);
    expect((await sb.auth.updateUser({ phone: '12ab' })).error).toMatchObject({
      status: 400,
      code: 'validation_failed',
    });
  });

  it('resend type phone_change replaces the code; 20 parallel verifies of it: exactly one session', async () => {
    const sb = await signedInEmailUser();
    const phone = freshPhone();
    await sb.auth.updateUser({ phone });
    const first = await smsCode(phone);
    expect((await t.client().auth.resend({ type: 'phone_change', phone })).error).toBeNull();
    const code = await smsCode(phone);
    expect((await smsRows(phone)).length).toBe(2);
    if (first !== code)
      expect(
        (await t.client().auth.verifyOtp({ phone, token: first, type: 'phone_change' })).error,
      ).toMatchObject({ status: 403 });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t
          .api('/verify', {
            method: 'POST',
            body: JSON.stringify({ type: 'phone_change', phone, token: code }),
          })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(19);
  });
});

describe('phone switched off (the default)', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer();
  });
  afterAll(async () => {
    await off?.close();
  });

  it("answers as GoTrue: sign-up 400 (after the password's strength), sign-in 422, resend 400", async () => {
    const phone = '+15550003333';
    expect((await off.client().auth.signUp({ phone, password: '123' })).error).toMatchObject({
      status: 422,
      code: 'weak_password',
    });
    expect((await off.client().auth.signUp({ phone, password })).error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Phone signups are disabled',
    });
    expect((await off.client().auth.signInWithPassword({ phone, password })).error).toMatchObject({
      status: 422,
      code: 'phone_provider_disabled',
      message: 'Phone logins are disabled',
    });
    expect((await off.client().auth.resend({ type: 'sms', phone })).error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Phone logins are disabled',
    });
  });
});
