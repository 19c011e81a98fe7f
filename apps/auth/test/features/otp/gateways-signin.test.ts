// A phone sign-in round trip through each remaining gateway (Taqnyat's is in delivery.test.ts):
// the real service and supabase-js against a local fake of the provider's API, which checks the
// request; the code the provider received signs in. The Unifonic server also sends WhatsApp through
// Taqnyat's WhatsApp endpoint and falls back to Unifonic when it refuses.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogEntries } from '../../../src/db/schema.ts';
import { type FakeGateway, type RecordedRequest, startFakeGateway } from '../../support/fake-gateway.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

let n = 0;
const freshPhone = () => `+9665${String(Date.now() % 10_000_000).padStart(7, '0')}${n++ % 10}`;
const codeIn = (text: string) => text.match(/\b(\d{6})\b/)?.[1] as string;

type Gateway = {
  name: string;
  env(url: string): Record<string, string>;
  ok: { status: number; body: unknown };
  /** Checks the request and returns the text sent. */
  text(r: RecordedRequest, phone: string): string;
};

const gateways: Gateway[] = [
  {
    name: 'unifonic',
    env: (url) => ({
      SMS_PROVIDER: 'unifonic',
      SMS_UNIFONIC_APP_SID: 'app-sid-1',
      SMS_UNIFONIC_BASE_URL: url,
    }),
    ok: { status: 200, body: { success: true, data: { MessageID: 31 } } },
    text(r, phone) {
      expect(r.path).toBe('/rest/SMS/messages');
      const form = new URLSearchParams(r.body);
      expect([form.get('AppSid'), form.get('SenderID'), form.get('Recipient')]).toEqual([
        'app-sid-1',
        'Namaa',
        phone.slice(1),
      ]);
      return form.get('Body') as string;
    },
  },
  {
    name: 'msegat',
    env: (url) => ({
      SMS_PROVIDER: 'msegat',
      SMS_MSEGAT_USERNAME: 'namaa',
      SMS_MSEGAT_API_KEY: 'msegat-key-1',
      SMS_MSEGAT_BASE_URL: url,
    }),
    ok: { status: 200, body: { code: '1', message: 'Success' } },
    text(r, phone) {
      expect(r.path).toBe('/gw/sendsms.php');
      const body = JSON.parse(r.body);
      expect(body).toMatchObject({
        userName: 'namaa',
        apiKey: 'msegat-key-1',
        numbers: phone.slice(1),
        userSender: 'Namaa',
      });
      return body.msg;
    },
  },
  {
    name: 'twilio',
    env: (url) => ({
      SMS_PROVIDER: 'twilio',
      SMS_TWILIO_ACCOUNT_SID: 'AC42',
      SMS_TWILIO_AUTH_TOKEN: 'twilio-token-1',
      SMS_TWILIO_MESSAGE_SERVICE_SID: 'MG42',
      SMS_TWILIO_BASE_URL: url,
    }),
    ok: { status: 201, body: { sid: 'SM1' } },
    text(r, phone) {
      expect(r.path).toBe('/2010-04-01/Accounts/AC42/Messages.json');
      expect(r.headers.authorization).toBe(`Basic ${Buffer.from('AC42:twilio-token-1').toString('base64')}`);
      const form = new URLSearchParams(r.body);
      expect([form.get('To'), form.get('MessagingServiceSid')]).toEqual([phone, 'MG42']);
      return form.get('Body') as string;
    },
  },
];

describe.each(gateways)('$name', (g) => {
  let t: TestServer;
  let sms: FakeGateway;
  let wa: FakeGateway;
  beforeAll(async () => {
    sms = await startFakeGateway(g.ok);
    wa = await startFakeGateway({ status: 201, body: { messages: [{ id: 'tq-wa' }] } });
    t = await startTestServer({
      EXTERNAL_PHONE_ENABLED: 'true',
      SMS_SENDER_ID: 'Namaa',
      SMS_MAX_FREQUENCY: '0',
      RATE_LIMIT_SMS_SENT: '100000',
      ...g.env(sms.url),
      ...(g.name === 'unifonic'
        ? {
            WHATSAPP_PROVIDER: 'taqnyat',
            SMS_TAQNYAT_BASE_URL: wa.url,
            WHATSAPP_TAQNYAT_TOKEN: 'taqnyat-wa-token',
            WHATSAPP_TAQNYAT_TEMPLATE: 'namaa_code',
          }
        : {}),
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await sms?.close();
    await wa?.close();
  });

  it('signInWithOtp({ phone }) → the provider gets the code → verifyOtp signs in', async () => {
    const phone = freshPhone();
    const before = sms.requests.length;
    expect((await t.client().auth.signInWithOtp({ phone })).error).toBeNull();
    const text = g.text(await sms.nth(before + 1), phone);
    expect(text).toMatch(/^Your Namaa sign-in code is \d{6}\./);
    const { data, error } = await t.client().auth.verifyOtp({ phone, token: codeIn(text), type: 'sms' });
    expect(error).toBeNull();
    expect(data.session).not.toBeNull();
  });

  it.runIf(g.name === 'unifonic')(
    "WhatsApp through Taqnyat's endpoint; when it refuses, the code comes by Unifonic",
    async () => {
      const phone = freshPhone();
      let before = wa.requests.length;
      expect(
        (await t.client().auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } })).error,
      ).toBeNull();
      const r = await wa.nth(before + 1);
      expect(r.path).toBe('/wa/v2/messages/');
      expect(r.headers.authorization).toBe('Bearer taqnyat-wa-token');
      const code = JSON.parse(r.body).template.components[0].parameters[0].text as string;
      const { data } = await t.client().auth.verifyOtp({ phone, token: code, type: 'sms' });
      expect(data.session).not.toBeNull();

      wa.answer({ status: 400, body: { message: 'recipient is not a WhatsApp user' } });
      before = sms.requests.length;
      expect(
        (await t.client().auth.signInWithOtp({ phone, options: { channel: 'whatsapp' } })).error,
      ).toBeNull();
      const text = g.text(await sms.nth(before + 1, 5_000), phone);
      expect((await t.client().auth.verifyOtp({ phone, token: codeIn(text), type: 'sms' })).error).toBeNull();
      const rows = await t.server.deps.db
        .select()
        .from(auditLogEntries)
        .where(
          and(
            eq(auditLogEntries.actorId, data.user?.id as string),
            eq(auditLogEntries.action, 'otp_delivered'),
          ),
        );
      expect(
        rows.map((row) => row.payload).sort((a, b) => String(a.channel).localeCompare(String(b.channel))),
      ).toEqual([
        {
          channel: 'sms',
          provider: 'unifonic',
          requested_channel: 'whatsapp',
          fallback: true,
          kind: 'phone_otp',
        },
        {
          channel: 'whatsapp',
          provider: 'taqnyat',
          requested_channel: 'whatsapp',
          fallback: false,
          kind: 'phone_otp',
        },
      ]);
    },
  );
});
