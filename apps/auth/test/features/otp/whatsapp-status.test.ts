// Meta's asynchronous verdict on a WhatsApp code (issue #26: "when WhatsApp delivery fails (the API
// refuses, or the number has no WhatsApp), the code goes out by SMS within seconds"): the Cloud API
// accepts the message, then its status webhook reports `failed` (131026: not on WhatsApp). Through
// the real service, supabase-js, and local fakes of Meta's and Taqnyat's APIs: a signed `failed`
// status texts the same code within seconds (audited as a fallback), `delivered` settles it so no
// SMS ever goes, replays and forged or unsigned calls change nothing, and the subscription check.
import { createHmac } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogEntries, mailOutbox } from '../../../src/db/schema.ts';
import { type FakeGateway, type RecordedRequest, startFakeGateway } from '../../support/fake-gateway.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

const APP_SECRET = 'meta-app-secret-7f6e5d4c3b2a';
const VERIFY_TOKEN = 'namaa-verify-91a8';
let messageSeq = 0;
let t: TestServer;
let sms: FakeGateway;
let wa: FakeGateway;
let n = 0;
const freshPhone = () => `+9665${String(Date.now() % 10_000_000).padStart(7, '0')}${n++ % 10}`;

beforeAll(async () => {
  sms = await startFakeGateway({ status: 201, body: { statusCode: 201, messageId: 7001 } });
  wa = await startFakeGateway({ status: 200, body: { messages: [{ id: 'wamid.first' }] } });
  t = await startTestServer({
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'taqnyat',
    SMS_SENDER_ID: 'Namaa',
    SMS_TAQNYAT_TOKEN: 'taqnyat-token-1',
    SMS_TAQNYAT_BASE_URL: sms.url,
    SMS_OTP_EXP: '120',
    SMS_MAX_FREQUENCY: '0',
    RATE_LIMIT_SMS_SENT: '100000',
    WHATSAPP_PROVIDER: 'meta',
    WHATSAPP_META_BASE_URL: `${wa.url}/v21.0`,
    WHATSAPP_META_PHONE_NUMBER_ID: '1098765',
    WHATSAPP_META_TOKEN: 'meta-token-1',
    WHATSAPP_META_TEMPLATE: 'namaa_code',
    WHATSAPP_META_APP_SECRET: APP_SECRET,
    WHATSAPP_META_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sms?.close();
  await wa?.close();
});

const waCode = (r: RecordedRequest) =>
  (JSON.parse(r.body) as { template: { components: { parameters: { text: string }[] }[] } }).template
    .components[0]?.parameters[0]?.text as string;
const smsCode = (r: RecordedRequest) =>
  (JSON.parse(r.body) as { body: string }).body.match(/\b(\d{6})\b/)?.[1];

/** A WhatsApp code accepted by the fake Cloud API under a fresh message id. */
async function whatsAppCode(phone: string) {
  const messageId = `wamid.${Date.now()}.${messageSeq++}`;
  wa.answer({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: messageId }] } });
  const before = wa.requests.length;
  const { error } = await t.client().auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } });
  expect(error).toBeNull();
  return { messageId, code: waCode(await wa.nth(before + 1)) };
}

function statusBody(messageId: string, phone: string, status: string) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { phone_number_id: '1098765' },
              statuses: [
                {
                  id: messageId,
                  status,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  recipient_id: phone.slice(1),
                  ...(status === 'failed'
                    ? { errors: [{ code: 131026, title: 'Message undeliverable' }] }
                    : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

const sign = (body: string, secret = APP_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Posts as Meta does: no apikey, the signature of the raw bytes. */
const post = (body: string, signature: string | null = sign(body)) =>
  fetch(`${t.url}/auth/v1/whatsapp/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature !== null ? { 'x-hub-signature-256': signature } : {}),
    },
    body,
  });

describe("Meta's status webhook", () => {
  it('a failed WhatsApp delivery sends the same code by SMS within seconds; it signs in; audited as a fallback', async () => {
    const phone = freshPhone();
    const { messageId, code } = await whatsAppCode(phone);
    const smsBefore = sms.requests.length;
    // Accepted by WhatsApp: nothing is texted while its verdict is pending.
    await new Promise((r) => setTimeout(r, 300));
    expect(sms.requests.length).toBe(smsBefore);
    const started = Date.now();
    const res = await post(statusBody(messageId, phone, 'failed'));
    expect(res.status).toBe(200);
    const texted = await sms.nth(smsBefore + 1, 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(JSON.parse(texted.body)).toMatchObject({ recipients: [phone.slice(1)] });
    expect(smsCode(texted)).toBe(code);
    const { data, error } = await t.client().auth.verifyOtp({ phone, token: code, type: 'sms' });
    expect(error).toBeNull();
    const rows = await t.server.deps.db
      .select()
      .from(auditLogEntries)
      .where(
        and(
          eq(auditLogEntries.actorId, data.user?.id as string),
          eq(auditLogEntries.action, 'otp_delivered'),
        ),
      );
    expect(rows.map((r) => r.payload)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channel: 'whatsapp', fallback: false }),
        expect.objectContaining({
          channel: 'sms',
          requested_channel: 'whatsapp',
          fallback: true,
          retried: true,
        }),
      ]),
    );
    // The same verdict again (Meta retries webhooks) texts nothing more.
    expect((await post(statusBody(messageId, phone, 'failed'))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(sms.requests.length).toBe(smsBefore + 1);
  });

  it('delivered settles the fallback: a later failed status sends nothing, and the kept code is blanked', async () => {
    const phone = freshPhone();
    const { messageId } = await whatsAppCode(phone);
    const smsBefore = sms.requests.length;
    expect((await post(statusBody(messageId, phone, 'delivered'))).status).toBe(200);
    expect((await post(statusBody(messageId, phone, 'failed'))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(sms.requests.length).toBe(smsBefore);
    const [row] = await t.server.deps.db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.toAddress, phone), eq(mailOutbox.subject, `whatsapp ${messageId}`)));
    expect(row).toMatchObject({ status: 'sent', text: '', html: '' });
  });

  it('forged, unsigned, wrongly signed and malformed calls are refused in GoTrue shape and change nothing', async () => {
    const phone = freshPhone();
    const { messageId } = await whatsAppCode(phone);
    const smsBefore = sms.requests.length;
    const body = statusBody(messageId, phone, 'failed');
    const refused = [
      await post(body, null),
      await post(body, sign(body, 'not-the-secret')),
      await post(body, 'sha256=zz'),
      await post(`${body} `, sign(body)),
    ];
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ error_code: 'no_authorization' });
    }
    const notJson = await post('{oops');
    expect(notJson.status).toBe(400);
    const notMeta = await post(JSON.stringify({ object: 'page', entry: [] }));
    expect(notMeta.status).toBe(400);
    expect(await notMeta.json()).toMatchObject({ error_code: 'validation_failed' });
    const huge = await post(
      JSON.stringify({ object: 'whatsapp_business_account', pad: 'x'.repeat(300_000) }),
    );
    expect(huge.status).toBe(413);
    // A status for another number or an unknown message: accepted, nothing sent.
    expect((await post(statusBody(messageId, freshPhone(), 'failed'))).status).toBe(200);
    expect((await post(statusBody('wamid.unknown', phone, 'failed'))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(sms.requests.length).toBe(smsBefore);
  });

  it("answers Meta's subscription check only with the verify token", async () => {
    const url = (token: string, challenge = '1158201444') =>
      `${t.url}/auth/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=${challenge}`;
    const ok = await fetch(url(VERIFY_TOKEN));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await fetch(url('guess'));
    expect(wrong.status).toBe(403);
    const hostile = await fetch(url(VERIFY_TOKEN, encodeURIComponent('<script>')));
    expect(hostile.status).toBe(400);
  });

  it('is not served without the webhook settings', async () => {
    const saved = t.config.delivery.whatsappWebhook;
    t.config.delivery.whatsappWebhook = undefined;
    try {
      expect((await post(statusBody('wamid.x', freshPhone(), 'failed'))).status).toBe(404);
    } finally {
      t.config.delivery.whatsappWebhook = saved;
    }
  });
});
