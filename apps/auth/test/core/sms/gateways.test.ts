// Each SMS and WhatsApp adapter against a local fake of its provider's API: the exact request
// (method, path, headers, body encoding, credentials) and what each answer becomes: success with the
// provider's message id, a refusal (4xx, or a failure inside a 200) that is permanent, an outage (5xx)
// or a timeout that is transient (the outbox retries it). No error message carries a credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msegatSms } from '../../../src/core/sms/msegat.ts';
import { SmsProviderError } from '../../../src/core/sms/provider-call.ts';
import type { SmsSender } from '../../../src/core/sms/sender.ts';
import { taqnyatSms } from '../../../src/core/sms/taqnyat.ts';
import { twilioSms } from '../../../src/core/sms/twilio.ts';
import { unifonicSms } from '../../../src/core/sms/unifonic.ts';
import { metaWhatsApp, taqnyatWhatsApp } from '../../../src/core/sms/whatsapp.ts';
import { type FakeGateway, type RecordedRequest, startFakeGateway } from '../../support/fake-gateway.ts';

let fake: FakeGateway;
beforeAll(async () => {
  fake = await startFakeGateway({ status: 200, body: {} });
});
afterAll(async () => {
  await fake?.close();
});

const TO = '+966512345678';
const TEXT = 'رمز الدخول في نماء: 123456. صالح 1 دقيقة. لا تشاركه.';
const SECRET = 'sekrit-credential-9f8e7d';
const timeoutMs = 400;

type Case = {
  name: string;
  sender: () => SmsSender;
  ok: unknown;
  messageId: string;
  check(r: RecordedRequest): void;
};

const cases: Case[] = [
  {
    name: 'unifonic',
    sender: () => unifonicSms({ appSid: SECRET, baseUrl: fake.url, senderId: 'Namaa', timeoutMs }),
    ok: { success: true, message: '', errorCode: 'ER-00', data: { MessageID: 4242 } },
    messageId: '4242',
    check(r) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/rest/SMS/messages');
      expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
        AppSid: SECRET,
        SenderID: 'Namaa',
        Recipient: '966512345678',
        Body: TEXT,
      });
    },
  },
  {
    name: 'taqnyat',
    sender: () => taqnyatSms({ token: SECRET, baseUrl: fake.url, senderId: 'Namaa', timeoutMs }),
    ok: { statusCode: 201, messageId: 77001, cost: '0.0500', currency: 'SAR' },
    messageId: '77001',
    check(r) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/v1/messages');
      expect(r.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body)).toEqual({ recipients: ['966512345678'], body: TEXT, sender: 'Namaa' });
    },
  },
  {
    name: 'msegat',
    sender: () =>
      msegatSms({ userName: 'namaa', apiKey: SECRET, baseUrl: fake.url, senderId: 'Namaa', timeoutMs }),
    ok: { code: 'M0000', message: 'Success' },
    messageId: '',
    check(r) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/gw/sendsms.php');
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(r.body)).toEqual({
        userName: 'namaa',
        apiKey: SECRET,
        numbers: '966512345678',
        userSender: 'Namaa',
        msg: TEXT,
        msgEncoding: 'UTF8',
      });
    },
  },
  {
    name: 'twilio',
    sender: () =>
      twilioSms({
        accountSid: 'AC0123456789abcdef',
        authToken: SECRET,
        messageServiceSid: 'MG0011',
        baseUrl: fake.url,
        timeoutMs,
      }),
    ok: { sid: 'SM99887766', status: 'accepted' },
    messageId: 'SM99887766',
    check(r) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/2010-04-01/Accounts/AC0123456789abcdef/Messages.json');
      const basic = Buffer.from(`AC0123456789abcdef:${SECRET}`).toString('base64');
      expect(r.headers.authorization).toBe(`Basic ${basic}`);
      expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({
        To: TO,
        MessagingServiceSid: 'MG0011',
        Body: TEXT,
      });
    },
  },
];

async function failure(p: Promise<unknown>): Promise<SmsProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SmsProviderError);
  const e = err as SmsProviderError;
  expect(e.message).not.toContain(SECRET);
  return e;
}

describe.each(cases)('$name SMS', (c) => {
  const message = { to: TO, body: TEXT, kind: 'phone_otp' as const };

  it('sends the exact request and returns the provider message id', async () => {
    fake.answer({ status: c.name === 'taqnyat' || c.name === 'twilio' ? 201 : 200, body: c.ok });
    const before = fake.requests.length;
    const sent = await c.sender().send(message);
    expect(sent.messageId ?? '').toBe(c.messageId);
    const r = await fake.nth(before + 1);
    c.check(r);
  });

  it('a 4xx is a permanent refusal; a 5xx, a 429 and a timeout are transient', async () => {
    fake.answer({ status: 401, body: { message: `bad credentials ${SECRET}` } });
    expect(await failure(c.sender().send(message))).toMatchObject({ permanent: true, status: 401 });
    fake.answer({ status: 503, body: {} });
    expect(await failure(c.sender().send(message))).toMatchObject({ permanent: false, status: 503 });
    fake.answer({ status: 429, body: {} });
    expect(await failure(c.sender().send(message))).toMatchObject({ permanent: false, status: 429 });
    fake.answer('hang');
    const started = Date.now();
    const timedOut = await failure(c.sender().send(message));
    expect(timedOut).toMatchObject({ permanent: false, status: undefined });
    expect(timedOut.message).toContain(`no answer within ${timeoutMs} ms`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('failures inside a 200', () => {
  it('unifonic success:false (a wrong AppSid) is a permanent refusal naming its error code', async () => {
    fake.answer({ status: 200, body: { success: false, message: 'Wrong AppSid', errorCode: 'ER-01' } });
    const e = await failure(
      unifonicSms({ appSid: SECRET, baseUrl: fake.url, senderId: 'Namaa', timeoutMs }).send({
        to: TO,
        body: 'x',
        kind: 'phone_otp',
      }),
    );
    expect(e).toMatchObject({ permanent: true });
    expect(e.message).toContain('ER-01');
  });

  it("msegat's own error code (no balance, bad key) is a permanent refusal", async () => {
    fake.answer({ status: 200, body: { code: 'M0002', message: 'Invalid login info' } });
    const e = await failure(
      msegatSms({ userName: 'namaa', apiKey: SECRET, baseUrl: fake.url, senderId: 'Namaa', timeoutMs }).send({
        to: TO,
        body: 'x',
        kind: 'phone_otp',
      }),
    );
    expect(e).toMatchObject({ permanent: true });
    expect(e.message).toContain('M0002');
  });
});

describe('WhatsApp', () => {
  const template = (locale: string) => ({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: '966512345678',
    type: 'template',
    template: {
      name: 'namaa_code',
      language: { code: locale },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: '654321' }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '654321' }] },
      ],
    },
  });

  it('meta: the Cloud API template message with the code in the body and the copy-code button', async () => {
    fake.answer({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.ABC' }] } });
    const before = fake.requests.length;
    const wa = metaWhatsApp({
      baseUrl: `${fake.url}/v21.0`,
      phoneNumberId: '1098765',
      token: SECRET,
      template: 'namaa_code',
      timeoutMs,
    });
    expect(await wa.send({ to: TO, code: '654321', locale: 'ar' })).toEqual({ messageId: 'wamid.ABC' });
    const r = await fake.nth(before + 1);
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v21.0/1098765/messages');
    expect(r.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual(template('ar'));
    // A number without WhatsApp (Meta's 131026) is a refusal: the caller falls back to SMS.
    fake.answer({ status: 400, body: { error: { code: 131026, message: 'Message undeliverable' } } });
    expect(await failure(wa.send({ to: TO, code: '654321', locale: 'en' }))).toMatchObject({
      permanent: true,
    });
    fake.answer({ status: 500, body: {} });
    expect(await failure(wa.send({ to: TO, code: '654321', locale: 'en' }))).toMatchObject({
      permanent: false,
    });
    fake.answer('hang');
    expect(await failure(wa.send({ to: TO, code: '654321', locale: 'en' }))).toMatchObject({
      permanent: false,
    });
  });

  it('taqnyat: its WhatsApp endpoint with the same template message, in English', async () => {
    fake.answer({ status: 201, body: { messages: [{ id: 'tq-1' }] } });
    const before = fake.requests.length;
    const wa = taqnyatWhatsApp({ baseUrl: fake.url, token: SECRET, template: 'namaa_code', timeoutMs });
    expect(await wa.send({ to: TO, code: '654321', locale: 'en' })).toEqual({ messageId: 'tq-1' });
    const r = await fake.nth(before + 1);
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/wa/v2/messages/');
    expect(r.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.parse(r.body)).toEqual(template('en'));
    fake.answer({ status: 422, body: {} });
    expect(await failure(wa.send({ to: TO, code: '654321', locale: 'en' }))).toMatchObject({
      permanent: true,
    });
    fake.answer({ status: 502, body: {} });
    expect(await failure(wa.send({ to: TO, code: '654321', locale: 'en' }))).toMatchObject({
      permanent: false,
    });
  });
});
