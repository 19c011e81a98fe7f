// Reauthentication of an account with a phone and no email (issue #14): GET /reauthenticate texts
// the nonce through the SMS sender (GoTrue's rule; the development sender writes it to the outbox,
// read here as the phone suites read their codes), and that nonce deletes the account (DELETE
// /account) or changes its password (PUT /user {password, nonce}); a wrong or spent code is refused.
// Accounts come from a phone + password sign-up under SMS_AUTOCONFIRM and from signInWithOtp({ phone }).
// Runs on PGlite, and on PostgreSQL with DATABASE_URL.
import { and, eq, like, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailOutbox, users } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

const PASSWORD = 'Phone-Only-Pass-62';
const TEST_NUMBER = '15550009999';
const TEST_CODE = '424242';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'dev',
    SMS_AUTOCONFIRM: 'true',
    SMS_MAX_FREQUENCY: '0',
    SMS_TEST_OTP: `${TEST_NUMBER}:${TEST_CODE}`,
    RATE_LIMIT_SMS_SENT: '100000',
  });
});
afterAll(async () => {
  await t?.close();
});

let nextNumber = 0;
const base = Date.now() % 100_000;
/** A number never used before in this file (E.164, a reserved-for-fiction US range). */
const freshPhone = () =>
  `+1557${String(base).padStart(5, '0')}${String(nextNumber++ % 100).padStart(2, '0')}`;

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await t.api(path, {
    method,
    headers: { 'x-supabase-api-version': '2024-01-01', authorization: `Bearer ${token}` },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the tests read fields of the JSON answers
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
}

/** The texts the development sender wrote for `phone` (E.164 with "+"), newest first. */
async function texts(phone: string) {
  const rows = await t.server.deps.db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.toAddress, phone), like(mailOutbox.subject, 'SMS to %')));
  return rows.sort((a, b) => +b.createdAt - +a.createdAt);
}

/** The code of the newest text to `phone` that is a reauthentication code. */
async function reauthCode(phone: string): Promise<string> {
  const newest = (await texts(phone)).find((r) => r.text.includes('code to confirm it is you'));
  const code = newest?.text.match(/ is (\d{6})\./)?.[1];
  expect(code, `a reauthentication text to ${phone}`).toBeDefined();
  return code as string;
}

/** A phone + password account, confirmed at once (SMS_AUTOCONFIRM), signed in. */
async function phonePasswordAccount() {
  const phone = freshPhone();
  const sb = t.client();
  const { data, error } = await sb.auth.signUp({ phone, password: PASSWORD });
  expect(error).toBeNull();
  const session = data.session as NonNullable<typeof data.session>;
  expect(session.user.email ?? '').toBe('');
  return { sb, phone, token: session.access_token, refresh: session.refresh_token, id: session.user.id };
}

const userRow = async (id: string) =>
  (await t.server.deps.db.select().from(users).where(eq(users.id, id)))[0];

describe('reauthentication of a phone-only account', () => {
  it('texts the nonce (message_id, no mail); a wrong code is refused; the texted code deletes the account', async () => {
    const a = await phonePasswordAccount();
    const mailBefore = t.inbox.all().length;
    const sent = await call(a.token, 'GET', '/reauthenticate');
    expect(sent.status).toBe(200);
    expect(sent.body.message_id).toEqual(expect.any(String));
    const code = await reauthCode(a.phone);
    expect((await userRow(a.id))?.reauthenticationSentAt).toBeInstanceOf(Date);
    // Nothing was mailed: the account has no address.
    expect(t.inbox.all().length).toBe(mailBefore);

    // A wrong code: refused, and the account is still there.
    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await call(a.token, 'DELETE', '/account', { nonce: wrong });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('reauthentication_not_valid');
    expect(await userRow(a.id)).toBeDefined();

    const deleted = await call(a.token, 'DELETE', '/account', { nonce: code });
    expect(deleted.status).toBe(204);
    expect(await userRow(a.id)).toBeUndefined();
    // Every session is over, and the number can sign up again.
    expect((await t.client().auth.refreshSession({ refresh_token: a.refresh })).error?.code).toBe(
      'refresh_token_not_found',
    );
    expect((await t.client().auth.signUp({ phone: a.phone, password: PASSWORD })).error).toBeNull();
    // No confirmation went anywhere: a phone-only account has no address to mail it to.
    expect(t.inbox.all().length).toBe(mailBefore);
  });

  it('a code is spent once, and the nonce of another account does not open this one', async () => {
    const a = await phonePasswordAccount();
    const b = await phonePasswordAccount();
    expect((await call(a.token, 'GET', '/reauthenticate')).status).toBe(200);
    expect((await call(b.token, 'GET', '/reauthenticate')).status).toBe(200);
    const codeOfB = await reauthCode(b.phone);
    const crossed = await call(a.token, 'DELETE', '/account', { nonce: codeOfB });
    expect(crossed.status).toBe(422);
    expect(crossed.body.code).toBe('reauthentication_not_valid');
    expect((await call(b.token, 'DELETE', '/account', { nonce: codeOfB })).status).toBe(204);
    expect(await userRow(a.id)).toBeDefined();
  });

  it('signInWithOtp({ phone }): an old session changes the password with the texted nonce, which is then spent', async () => {
    const phone = freshPhone();
    const sb = t.client();
    expect((await sb.auth.signInWithOtp({ phone })).error).toBeNull();
    const signInText = (await texts(phone))[0]?.text ?? '';
    const token = signInText.match(/ is (\d{6})\./)?.[1] as string;
    const verified = await sb.auth.verifyOtp({ phone, token, type: 'sms' });
    expect(verified.error).toBeNull();
    const id = verified.data.user?.id as string;
    // A session over 24 h old must prove its owner again (GoTrue's rule).
    await t.server.deps.db.execute(
      sql`update sessions set created_at = now() - interval '25 hours' where user_id = ${id}`,
    );
    const needed = await sb.auth.updateUser({ password: PASSWORD });
    expect(needed.error?.code).toBe('reauthentication_needed');
    expect((await sb.auth.reauthenticate()).error).toBeNull();
    const nonce = await reauthCode(phone);
    const wrong = await sb.auth.updateUser({
      password: PASSWORD,
      nonce: nonce === '999999' ? '999998' : '999999',
    });
    expect(wrong.error?.code).toBe('reauthentication_not_valid');
    expect((await sb.auth.updateUser({ password: PASSWORD, nonce })).error).toBeNull();
    expect((await t.client().auth.signInWithPassword({ phone, password: PASSWORD })).error).toBeNull();
    // Spent: the same code does not delete the account afterwards.
    const session = (await sb.auth.getSession()).data.session;
    const again = await call(session?.access_token as string, 'DELETE', '/account', { nonce });
    expect(again.status).toBe(422);
  });

  it('a test number (SMS_TEST_OTP) is texted nothing; its fixed code is the nonce', async () => {
    const sb = t.client();
    expect((await sb.auth.signInWithOtp({ phone: `+${TEST_NUMBER}` })).error).toBeNull();
    const verified = await sb.auth.verifyOtp({ phone: `+${TEST_NUMBER}`, token: TEST_CODE, type: 'sms' });
    expect(verified.error).toBeNull();
    const token = verified.data.session?.access_token as string;
    const sent = await call(token, 'GET', '/reauthenticate');
    expect(sent.status).toBe(200);
    expect(sent.body.message_id).toBe('test-otp');
    expect(await texts(`+${TEST_NUMBER}`)).toEqual([]);
    expect((await call(token, 'DELETE', '/account', { nonce: '123123' })).status).toBe(422);
    expect((await call(token, 'DELETE', '/account', { nonce: TEST_CODE })).status).toBe(204);
  });

  it('the text is in the language remembered on the account', async () => {
    const phone = freshPhone();
    const sb = t.client();
    const { data } = await sb.auth.signUp({ phone, password: PASSWORD, options: { data: { locale: 'ar' } } });
    const token = data.session?.access_token as string;
    expect((await call(token, 'GET', '/reauthenticate')).status).toBe(200);
    const newest = (await texts(phone))[0]?.text ?? '';
    expect(newest).toContain('رمز تأكيد هويتك');
    expect(newest).toMatch(/\d{6}/);
  });
});
