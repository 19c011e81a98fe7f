// Codes and phone numbers typed with an Arabic keyboard (issue #26, "Numbers and digits people
// actually type"), through the official client against the real service: Arabic-Indic (٠–٩) and
// Persian (۰–۹) digits in email and SMS codes, TOTP and phone-factor codes, the reauthentication
// nonce and phone numbers (sign-in, sign-up, password sign-in, MFA enrolment, admin API), always
// kept and answered as E.164 ASCII; and what is refused: local numbers, mixed digit scripts,
// fullwidth digits, zero-width characters, oversized and wrongly typed values (4xx, never 5xx).
import { createClient } from '@supabase/supabase-js';
import { eq, sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, users } from '../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

const SERVICE_KEY = 'sb_secret_arabic_digits_test_key_0123456789';
const PASSWORD = 'Digits-Suite-Pass-4471';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    SERVICE_ROLE_KEY: SERVICE_KEY,
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'dev',
    SMS_MAX_FREQUENCY: '0',
    MFA_PHONE_MAX_FREQUENCY: '0',
    RATE_LIMIT_SMS_SENT: '100000',
    RATE_LIMIT_OTP_PER_IP: '1000',
    RATE_LIMIT_VERIFY_PER_IP: '1000',
  });
});
afterAll(async () => {
  await t?.close();
});

const arabic = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
const persian = (s: string) => s.replace(/\d/g, (d) => String.fromCharCode(0x06f0 + Number(d)));

let next = 0;
const base = String(Date.now() % 100_000).padStart(5, '0');
/** A Saudi mobile number never used before in this file, as E.164 digits without "+": 9665xxxxxxxx. */
const freshSaudi = () => `9665${base}${String(next++ % 1000).padStart(3, '0')}`;
/** "+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧": how the number is written on an Arabic keyboard. */
const typedArabic = (digits: string) =>
  `+${arabic(digits.slice(0, 3))} ${arabic(digits.slice(3, 5))} ${arabic(digits.slice(5, 8))} ${arabic(digits.slice(8))}`;

/** The code of the newest SMS to `+digits` (the dev sender writes it to the outbox). */
async function smsCode(digits: string): Promise<string> {
  const rows = await t.server.deps.db
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.toAddress, `+${digits}`));
  const newest = rows.sort((a, b) => +b.createdAt - +a.createdAt)[0];
  const code = newest?.text?.match(/\b(\d{6})\b/)?.[1];
  expect(code, `an SMS to +${digits}`).toBeDefined();
  return code as string;
}

async function userByPhone(digits: string) {
  return t.server.deps.db.select().from(users).where(eq(users.phone, digits));
}

const post = (path: string, body: unknown) =>
  t.api(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
    body: JSON.stringify(body),
  });

describe('email codes', () => {
  it('verifyOtp with the mailed code typed in Arabic-Indic digits signs in; in Persian digits too', async () => {
    const email = uniqueEmail('digits-email');
    const sb = t.client();
    expect((await sb.auth.signInWithOtp({ email })).error).toBeNull();
    const first = (await t.inbox.waitFor(email)).code as string;
    expect(first).toMatch(/^\d{6}$/);
    // A wrong code in Arabic digits is just a wrong code.
    const wrong = first === '000000' ? '111111' : '000000';
    expect((await sb.auth.verifyOtp({ email, token: arabic(wrong), type: 'email' })).error).toMatchObject({
      status: 403,
      code: 'otp_expired',
    });
    const { data, error } = await sb.auth.verifyOtp({ email, token: arabic(first), type: 'email' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect(decodeJwt(data.session?.access_token as string)).toMatchObject({ amr: [{ method: 'otp' }] });

    const other = t.client();
    expect((await other.auth.signInWithOtp({ email })).error).toBeNull();
    const second = (await t.inbox.waitFor(email)).code as string;
    // Wrapped in the marks an Arabic text field adds around a number (U+200F, U+061C): dropped.
    const token = `\u200F${persian(second)}\u061C`;
    expect((await other.auth.verifyOtp({ email, token, type: 'email' })).error).toBeNull();
  });

  it('the reauthentication nonce (PUT /user) is accepted in Arabic-Indic digits', async () => {
    const email = uniqueEmail('digits-reauth');
    const sb = t.client();
    expect((await sb.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expect((await fetch(mail.links[0] as string, { redirect: 'manual' })).status).toBe(303);
    expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    await t.server.deps.db.execute(sql`update sessions set created_at = now() - interval '25 hours'
      where user_id = (select id from users where email = ${email})`);
    expect((await sb.auth.updateUser({ password: 'second Password 1' })).error?.code).toBe(
      'reauthentication_needed',
    );
    expect((await sb.auth.reauthenticate()).error).toBeNull();
    const nonce = (await t.inbox.waitFor(email, (m) => /confirmation code/.test(m.subject))).code as string;
    expect(
      (await sb.auth.updateUser({ password: 'second Password 1', nonce: arabic(nonce) })).error,
    ).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'second Password 1' })).error,
    ).toBeNull();
  });
});

describe('phone numbers and SMS codes', () => {
  it('"+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧" signs in by SMS; the code in Arabic-Indic digits verifies; stored and answered as E.164', async () => {
    const digits = freshSaudi();
    const sb = t.client();
    expect((await sb.auth.signInWithOtp({ phone: typedArabic(digits) })).error).toBeNull();
    const code = await smsCode(digits);
    // Persian digits with dashes and parentheses: the same number.
    const phone = `(+${persian(digits.slice(0, 3))}) ${persian(digits.slice(3, 5))}-${persian(digits.slice(5, 8))}\u2013${persian(digits.slice(8))}`;
    const { data, error } = await sb.auth.verifyOtp({ phone, token: arabic(code), type: 'sms' });
    expect(error).toBeNull();
    expect(data.user?.phone).toBe(digits);
    expect(decodeJwt(data.session?.access_token as string)).toMatchObject({ phone: digits });
    const rows = await userByPhone(digits);
    expect(rows).toHaveLength(1);
  });

  it('a local number ("٠٥٠ ١٢٣ ٤٥٦٧", "00966…") is not E.164: refused with validation_failed, nothing sent', async () => {
    const digits = freshSaudi();
    const local = `٠${arabic(digits.slice(3, 5))} ${arabic(digits.slice(5, 8))} ${arabic(digits.slice(8))}`;
    for (const phone of [local, `00${digits}`, `٠٠${arabic(digits)}`]) {
      const { error } = await t.client().auth.signInWithOtp({ phone });
      expect(error, phone).toMatchObject({ status: 400, code: 'validation_failed' });
    }
    const sent = await t.server.deps.db
      .select()
      .from(mailOutbox)
      .where(sql`${mailOutbox.toAddress} like ${`%${digits.slice(3)}`}`);
    expect(sent).toEqual([]);
  });

  it('sign-up and password sign-in by phone take the number in either script', async () => {
    const digits = freshSaudi();
    const sb = t.client();
    const signUp = await sb.auth.signUp({ phone: typedArabic(digits), password: PASSWORD });
    expect(signUp.error).toBeNull();
    expect(signUp.data.user?.phone).toBe(digits);
    const code = await smsCode(digits);
    expect(
      (await sb.auth.verifyOtp({ phone: `+${digits}`, token: persian(code), type: 'sms' })).error,
    ).toBeNull();
    const signIn = await t.client().auth.signInWithPassword({
      phone: `+${persian(digits)}`,
      password: PASSWORD,
    });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.phone).toBe(digits);
    // The same account, not a second one.
    expect(await userByPhone(digits)).toHaveLength(1);
  });

  it('the admin API stores an Arabic-typed number as E.164', async () => {
    const admin = createClient(t.url, SERVICE_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
    }).auth.admin;
    const digits = freshSaudi();
    const created = await admin.createUser({ phone: typedArabic(digits), phone_confirm: true });
    expect(created.error).toBeNull();
    expect(created.data.user?.phone).toBe(digits);
    const moved = freshSaudi();
    const updated = await admin.updateUserById(created.data.user?.id as string, {
      phone: `+${persian(moved)}`,
    });
    expect(updated.error).toBeNull();
    expect(updated.data.user?.phone).toBe(moved);
    const refused = await admin.createUser({ phone: '٠٥٠١٢٣٤٥٦٧' });
    expect(refused.error).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});

describe('MFA codes', () => {
  it('a TOTP code typed in Arabic-Indic digits verifies the factor and raises the session to aal2', async () => {
    const email = uniqueEmail('digits-totp');
    const sb = t.client();
    expect((await sb.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expect((await fetch(mail.links[0] as string, { redirect: 'manual' })).status).toBe(303);
    expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'totp' });
    expect(enrolled.error).toBeNull();
    const factor = enrolled.data as { id: string; totp: { secret: string } };
    const now = Math.floor(Date.now() / 1000);
    const code = await generate({ secret: factor.totp.secret, epoch: now });
    const verified = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: arabic(code) });
    expect(verified.error).toBeNull();
    expect(decodeJwt(verified.data?.access_token as string)).toMatchObject({ aal: 'aal2' });

    // At the next sign-in, the second step in Persian digits.
    const again = t.client();
    expect((await again.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const next = await generate({ secret: factor.totp.secret, epoch: now + 30 });
    const step = await again.auth.mfa.challengeAndVerify({ factorId: factor.id, code: persian(next) });
    expect(step.error).toBeNull();
    expect(decodeJwt(step.data?.access_token as string)).toMatchObject({ aal: 'aal2' });
  });

  it('a phone factor enrols an Arabic-typed number (kept as E.164) and verifies a code in Persian digits', async () => {
    const email = uniqueEmail('digits-phone-mfa');
    const sb = t.client();
    expect((await sb.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expect((await fetch(mail.links[0] as string, { redirect: 'manual' })).status).toBe(303);
    expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const digits = freshSaudi();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'phone', phone: typedArabic(digits) });
    expect(enrolled.error).toBeNull();
    const factor = enrolled.data as { id: string; phone: string };
    expect(factor.phone).toBe(digits);
    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    expect(challenge.error).toBeNull();
    const code = await smsCode(digits);
    const verified = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data?.id as string,
      code: persian(code),
    });
    expect(verified.error).toBeNull();
    expect(decodeJwt(verified.data?.access_token as string)).toMatchObject({ aal: 'aal2' });
  });
});

describe('hostile input: a clear 4xx in the GoTrue shape, never a 5xx', () => {
  it('refuses a code mixing Arabic-Indic and Persian digits, even when its digits are right', async () => {
    const email = uniqueEmail('digits-mixed');
    const sb = t.client();
    expect((await sb.auth.signInWithOtp({ email })).error).toBeNull();
    const code = (await t.inbox.waitFor(email)).code as string;
    const mixed = arabic(code.slice(0, 3)) + persian(code.slice(3));
    expect((await sb.auth.verifyOtp({ email, token: mixed, type: 'email' })).error).toMatchObject({
      status: 403,
      code: 'otp_expired',
    });
    // The same code in one script still works: the refusal spent nothing.
    expect((await sb.auth.verifyOtp({ email, token: arabic(code), type: 'email' })).error).toBeNull();
  });

  it('refuses numbers with mixed scripts, fullwidth digits or zero-width characters; accepts bidi marks', async () => {
    const digits = freshSaudi();
    const refused = [
      `+${arabic(digits.slice(0, 6))}${persian(digits.slice(6))}`, // Arabic-Indic and Persian mixed
      `+${digits.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))}`, // fullwidth ０–９
      `+${arabic(digits.slice(0, 6))}\u200B${arabic(digits.slice(6))}`, // zero-width space
      `+${digits.slice(0, 6)}\u200D${digits.slice(6)}`, // zero-width joiner
      `\uFEFF+${digits}`, // byte-order mark
      `+${digits.replace(/\d/g, (d) => String.fromCharCode(0x0966 + Number(d)))}`, // Devanagari
    ];
    for (const phone of refused) {
      const res = await post('/otp', { phone });
      expect(res.status, JSON.stringify(phone)).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'validation_failed' });
    }
    // The marks an RTL field or a phone's contacts put around a number are dropped.
    const marked = `\u202A\u200F+${arabic(digits)}\u061C\u202C`;
    expect((await post('/otp', { phone: marked })).status).toBe(200);
    expect(await smsCode(digits)).toMatch(/^\d{6}$/);
  });

  it('oversized and wrongly typed codes and numbers answer 400 validation_failed', async () => {
    const huge = '٠'.repeat(100 * 1024);
    const cases: Array<[string, unknown]> = [
      ['/otp', { phone: huge }],
      ['/otp', { phone: 966501234567 }],
      ['/otp', { phone: ['+966501234567'] }],
      ['/signup', { phone: huge, password: PASSWORD }],
      ['/token?grant_type=password', { phone: huge, password: PASSWORD }],
      ['/verify', { type: 'sms', phone: '+966501234567', token: huge }],
      ['/verify', { type: 'sms', phone: '+966501234567', token: 123456 }],
      ['/verify', { type: 'email', email: 'a@example.com', token: { '٠': 1 } }],
      ['/verify', { type: 'sms', phone: `+${'\u200F'.repeat(100_000)}`, token: '123456' }],
    ];
    for (const [path, body] of cases) {
      const res = await post(path, body);
      const label = `${path} ${JSON.stringify(body).slice(0, 60)}`;
      expect(res.status, label).toBe(400);
      expect(await res.json(), label).toMatchObject({ code: 'validation_failed' });
    }
  });

  it('a refused MFA code (zero-width, fullwidth) is a failed verification, not a server error', async () => {
    const email = uniqueEmail('digits-mfa-hostile');
    const sb = t.client();
    expect((await sb.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expect((await fetch(mail.links[0] as string, { redirect: 'manual' })).status).toBe(303);
    expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const factor = enrolled.data as { id: string; totp: { secret: string } };
    const code = await generate({ secret: factor.totp.secret, epoch: Math.floor(Date.now() / 1000) });
    for (const typed of [
      `${arabic(code.slice(0, 3))}\u200B${arabic(code.slice(3))}`,
      code.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))),
      '٠'.repeat(21),
    ]) {
      const { error } = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: typed });
      expect(error?.status, JSON.stringify(typed)).toBeGreaterThanOrEqual(400);
      expect(error?.status, JSON.stringify(typed)).toBeLessThan(500);
    }
  });
});
