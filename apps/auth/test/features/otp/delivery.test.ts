// Delivery of phone codes through the real service and supabase-js, with local fakes of Taqnyat's
// SMS API and Meta's WhatsApp Cloud API: the text in the visitor's language, WhatsApp with the code
// in the template, the fallback to SMS when WhatsApp refuses or fails, a provider's refusal as
// GoTrue's sms_send_failed (with no credential in the logs), an outage or timeout retried through
// the outbox until the code arrives, the audit row naming the channel, and bad `channel` input.
import { Writable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogEntries } from '../../../src/db/schema.ts';
import { createLogger } from '../../../src/logger.ts';
import { type FakeGateway, type RecordedRequest, startFakeGateway } from '../../support/fake-gateway.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

const SMS_TOKEN = 'taqnyat-bearer-5e4d3c2b1a';
const WA_TOKEN = 'meta-graph-token-0a9b8c7d';
const SMS_OK = { status: 201, body: { statusCode: 201, messageId: 5150 } };
const WA_OK = { status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.OK' }] } };

let t: TestServer;
let sms: FakeGateway;
let wa: FakeGateway;
let logs = '';
let n = 0;
const freshPhone = () => `+9665${String(Date.now() % 10_000_000).padStart(7, '0')}${n++ % 10}`;

beforeAll(async () => {
  sms = await startFakeGateway(SMS_OK);
  wa = await startFakeGateway(WA_OK);
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  t = await startTestServer(
    {
      EXTERNAL_PHONE_ENABLED: 'true',
      SMS_PROVIDER: 'taqnyat',
      SMS_SENDER_ID: 'Namaa',
      SMS_TAQNYAT_TOKEN: SMS_TOKEN,
      SMS_TAQNYAT_BASE_URL: sms.url,
      SMS_PROVIDER_TIMEOUT: '1000',
      SMS_OTP_EXP: '120',
      SMS_MAX_FREQUENCY: '0',
      RATE_LIMIT_SMS_SENT: '100000',
      WHATSAPP_PROVIDER: 'meta',
      WHATSAPP_META_BASE_URL: `${wa.url}/v21.0`,
      WHATSAPP_META_PHONE_NUMBER_ID: '1098765',
      WHATSAPP_META_TOKEN: WA_TOKEN,
      WHATSAPP_META_TEMPLATE: 'namaa_code',
      MAILER_AUTOCONFIRM: 'true',
      MFA_PHONE_MAX_FREQUENCY: '0',
    },
    { logger: createLogger('debug', sink) },
  );
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sms?.close();
  await wa?.close();
});

const smsText = (r: RecordedRequest) => (JSON.parse(r.body) as { body: string }).body;
const smsCode = (r: RecordedRequest) => smsText(r).match(/\b(\d{6})\b/)?.[1] as string;
const waCode = (r: RecordedRequest) =>
  (JSON.parse(r.body) as { template: { components: { parameters: { text: string }[] }[] } }).template
    .components[0]?.parameters[0]?.text as string;

async function deliveries(userId: string) {
  const rows = await t.server.deps.db
    .select()
    .from(auditLogEntries)
    .where(and(eq(auditLogEntries.actorId, userId), eq(auditLogEntries.action, 'otp_delivered')));
  return rows.map((r) => r.payload);
}

async function signIn(phone: string, token: string) {
  const { data, error } = await t.client().auth.verifyOtp({ phone, token, type: 'sms' });
  expect(error).toBeNull();
  expect(data.session?.access_token).toEqual(expect.any(String));
  return data.user?.id as string;
}

describe('codes by a Saudi SMS gateway', () => {
  it('signInWithOtp({ phone }) texts the code through Taqnyat, in Arabic for an Arabic visitor; verifyOtp signs in', async () => {
    sms.answer(SMS_OK);
    const phone = freshPhone();
    const before = sms.requests.length;
    const sent = await t.client().auth.signInWithOtp({ phone, options: { data: { locale: 'ar' } } });
    expect(sent.error).toBeNull();
    expect(sent.data.messageId).toBe('5150');
    const r = await sms.nth(before + 1);
    expect(r.headers.authorization).toBe(`Bearer ${SMS_TOKEN}`);
    expect(JSON.parse(r.body)).toMatchObject({ recipients: [phone.slice(1)], sender: 'Namaa' });
    expect(smsText(r)).toMatch(/^رمز الدخول في نماء: \d{6}\. صالح 2 دقيقة\. لا تشاركه\.$/);
    expect(smsText(r)).not.toMatch(/https?:|www\./);
    const userId = await signIn(phone, smsCode(r));
    expect(await deliveries(userId)).toEqual([
      { channel: 'sms', provider: 'taqnyat', requested_channel: 'sms', fallback: false, kind: 'phone_otp' },
    ]);
    // The next code for this account is Arabic too (the language is remembered on the user).
    await t.client().auth.signInWithOtp({ phone });
    expect(smsText(await sms.nth(before + 2))).toMatch(/^رمز الدخول/);
  });

  it('an English visitor gets English text, short and with no link', async () => {
    sms.answer(SMS_OK);
    const before = sms.requests.length;
    const phone = freshPhone();
    expect((await t.client().auth.signInWithOtp({ phone })).error).toBeNull();
    const text = smsText(await sms.nth(before + 1));
    expect(text).toMatch(/^Your Namaa sign-in code is \d{6}\. Valid 2 min\. Do not share it\.$/);
    expect(text.length).toBeLessThanOrEqual(160);
  });

  it("the gateway's refusal (4xx) answers GoTrue's sms_send_failed with a clear message; no credential is logged", async () => {
    sms.answer({ status: 401, body: { message: `Unauthorized token ${SMS_TOKEN}` } });
    const phone = freshPhone();
    // supabase-js reports GoTrue's 500 as a retryable fetch error carrying the message.
    const { error } = await t.client().auth.signInWithOtp({ phone });
    expect(error).toMatchObject({
      status: 500,
      message: 'Error sending confirmation OTP to provider: taqnyat: answered HTTP 401',
    });
    const raw = await t.api('/otp', {
      method: 'POST',
      headers: { 'X-Supabase-Api-Version': '2024-01-01' },
      body: JSON.stringify({ phone: freshPhone() }),
    });
    expect(raw.status).toBe(500);
    expect(await raw.json()).toEqual({
      code: 'sms_send_failed',
      message: 'Error sending confirmation OTP to provider: taqnyat: answered HTTP 401',
    });
    expect(logs).toContain('code delivery failed');
    expect(logs).not.toContain(SMS_TOKEN);
    expect(logs).not.toContain(WA_TOKEN);
    // The refused code was withdrawn: nothing pending can be guessed.
    sms.answer(SMS_OK);
  });

  it('an outage (5xx) or a timeout is retried through the outbox until the code arrives', async () => {
    const phone = freshPhone();
    sms.answer('hang');
    const before = sms.requests.length;
    const sent = await t.client().auth.signInWithOtp({ phone });
    expect(sent.error).toBeNull();
    expect(sent.data.messageId).toEqual(expect.any(String));
    await sms.nth(before + 1);
    // The first retry meets an outage, the next one gets through.
    sms.answer({ status: 503, body: {} });
    await sms.nth(before + 2, 60_000);
    sms.answer(SMS_OK);
    const delivered = await sms.nth(before + 3, 60_000);
    const userId = await signIn(phone, smsCode(delivered));
    expect(await deliveries(userId)).toEqual([
      expect.objectContaining({ channel: 'sms', provider: 'taqnyat', retried: true }),
    ]);
    expect(logs).not.toContain(SMS_TOKEN);
  }, 120_000);
});

describe('codes by WhatsApp', () => {
  it('channel whatsapp sends the authentication template with the code; no SMS; the audit row says whatsapp', async () => {
    wa.answer(WA_OK);
    const phone = freshPhone();
    const smsBefore = sms.requests.length;
    const before = wa.requests.length;
    const sent = await t.client().auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } });
    expect(sent.error).toBeNull();
    expect(sent.data.messageId).toBe('wamid.OK');
    const r = await wa.nth(before + 1);
    expect(r.path).toBe('/v21.0/1098765/messages');
    expect(r.headers.authorization).toBe(`Bearer ${WA_TOKEN}`);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({
      messaging_product: 'whatsapp',
      to: phone.slice(1),
      type: 'template',
      template: { name: 'namaa_code', language: { code: 'en' } },
    });
    expect(body.template.components[1]).toEqual({
      type: 'button',
      sub_type: 'url',
      index: '0',
      parameters: [{ type: 'text', text: waCode(r) }],
    });
    const userId = await signIn(phone, waCode(r));
    expect(sms.requests.length).toBe(smsBefore);
    expect(await deliveries(userId)).toEqual([
      {
        channel: 'whatsapp',
        provider: 'meta',
        requested_channel: 'whatsapp',
        fallback: false,
        kind: 'phone_otp',
      },
    ]);
  });

  it.each([
    ['a number without WhatsApp (400, 131026)', { status: 400, body: { error: { code: 131026 } } }],
    ['a WhatsApp outage (500)', { status: 500, body: {} }],
  ] as const)('%s: the code goes out by SMS within seconds', async (_name, answer) => {
    wa.answer(answer);
    sms.answer(SMS_OK);
    const phone = freshPhone();
    const smsBefore = sms.requests.length;
    const started = Date.now();
    const sent = await t
      .client()
      .auth.signInWithOtp({ phone, options: { channel: 'whatsapp', data: { locale: 'ar' } } });
    expect(sent.error).toBeNull();
    const r = await sms.nth(smsBefore + 1, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(smsText(r)).toMatch(/^رمز الدخول/);
    const userId = await signIn(phone, smsCode(r));
    expect(await deliveries(userId)).toEqual([
      {
        channel: 'sms',
        provider: 'taqnyat',
        requested_channel: 'whatsapp',
        fallback: true,
        kind: 'phone_otp',
      },
    ]);
    wa.answer(WA_OK);
  });

  it('signUp({ phone, password, options: { channel: whatsapp } }) sends the confirmation code by WhatsApp in Arabic', async () => {
    wa.answer(WA_OK);
    const phone = freshPhone();
    const before = wa.requests.length;
    const { error } = await t.client().auth.signUp({
      phone,
      password: 'correct horse battery staple',
      options: { channel: 'whatsapp', data: { locale: 'ar' } },
    });
    expect(error).toBeNull();
    const r = await wa.nth(before + 1);
    expect(JSON.parse(r.body).template.language).toEqual({ code: 'ar' });
    await signIn(phone, waCode(r));
  });

  it('mfa.challenge({ channel: whatsapp }) sends the phone factor code by WhatsApp; it verifies to aal2', async () => {
    wa.answer(WA_OK);
    const sb = t.client();
    const email = `wa-${Date.now()}@example.test`;
    expect((await sb.auth.signUp({ email, password: 'correct horse battery staple' })).error).toBeNull();
    const phone = freshPhone();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'phone', phone });
    expect(enrolled.error).toBeNull();
    const factorId = enrolled.data?.id as string;
    const before = wa.requests.length;
    const ch = await sb.auth.mfa.challenge({ factorId, channel: 'whatsapp' });
    expect(ch.error).toBeNull();
    const r = await wa.nth(before + 1);
    expect(JSON.parse(r.body)).toMatchObject({ to: phone.slice(1), template: { name: 'namaa_code' } });
    const ok = await sb.auth.mfa.verify({ factorId, challengeId: ch.data?.id as string, code: waCode(r) });
    expect(ok.error).toBeNull();
    expect(ok.data?.access_token).toEqual(expect.any(String));
  });

  it('a bad channel is 400 validation_failed, never 5xx', async () => {
    const phone = freshPhone();
    for (const channel of ['carrier-pigeon', 'WHATSAPP', 123, 'x'.repeat(5000), null, ['whatsapp']]) {
      const res = await t.api('/otp', {
        method: 'POST',
        headers: { 'X-Supabase-Api-Version': '2024-01-01' },
        body: JSON.stringify({ phone, channel }),
      });
      expect(res.status, JSON.stringify(channel).slice(0, 40)).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'validation_failed' });
    }
    const signup = await t.api('/signup', {
      method: 'POST',
      headers: { 'X-Supabase-Api-Version': '2024-01-01' },
      body: JSON.stringify({ phone, password: 'correct horse battery staple', channel: 'fax' }),
    });
    expect(signup.status).toBe(400);
    expect(await signup.json()).toMatchObject({ code: 'validation_failed' });
  });
});

describe('without WHATSAPP_PROVIDER', () => {
  let dev: TestServer;
  beforeAll(async () => {
    dev = await startTestServer({ EXTERNAL_PHONE_ENABLED: 'true', SMS_PROVIDER: 'dev' });
  }, 120_000);
  afterAll(async () => {
    await dev?.close();
  });

  it("channel whatsapp is GoTrue's answer for an unsupported channel; sms still works", async () => {
    const phone = freshPhone();
    const { error } = await dev.client().auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } });
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: "Invalid channel, supported values are 'sms' or 'whatsapp'",
    });
    expect((await dev.client().auth.signInWithOtp({ phone, options: { channel: 'sms' } })).error).toBeNull();
  });
});
