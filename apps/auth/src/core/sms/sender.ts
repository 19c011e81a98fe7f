// The SMS sender interface for the phone MFA factor. A provider is chosen by configuration:
//   SMS_PROVIDER=dev      (default outside production) the message is written to the development
//                         mailbox (/auth/v1/_dev/mailbox), subject "SMS to +…"; nothing leaves the machine.
//   SMS_PROVIDER=webhook  POST {to, body, kind} as JSON to SMS_WEBHOOK_URL, with
//                         "Authorization: Bearer $SMS_WEBHOOK_TOKEN" when set. Any 2xx is success; a JSON
//                         answer with `message_id` (or `id`) is passed back to the client. Bridge it to
//                         Twilio, Vonage, MessageBird… in a few lines of your own.
//   SMS_PROVIDER=unifonic | taqnyat | msegat | twilio: the gateways' own APIs (one module each here);
//   WHATSAPP_PROVIDER adds WhatsApp (whatsapp.ts), and code-delivery.ts wraps them all with the
//   channel fallback, the outbox retries and the audit row.
// Programmatic callers (tests, embedders) pass any object implementing SmsSender to startServer.
import type { Db } from '../../db/client.ts';
import { enqueueMail } from '../../db/outbox.repo.ts';
import { AuthError } from '../../errors.ts';

export type SmsMessage = {
  to: string;
  body: string;
  kind: 'mfa_phone' | 'phone_otp';
  /** What the visitor asked for; 'whatsapp' is honoured when WHATSAPP_PROVIDER is set. */
  channel?: 'sms' | 'whatsapp' | undefined;
  /** The code alone (a WhatsApp template carries it as a parameter, not the text). */
  code?: string | undefined;
  /** The visitor's language (core/mail/locale.ts): the WhatsApp template's language. */
  locale?: string | undefined;
  /** The account the code is for: the audit row of its delivery. */
  userId?: string | undefined;
  /** How long the code is valid: retries stop after it. */
  validForSec?: number | undefined;
  /** For the send-SMS hook (core/hooks/send-hooks.ts), which gets the code and the user, not the text. */
  hook?: {
    otp: string;
    /** The user as GoTrue's JSON, or its id (read when the hook runs). */
    user?: Record<string, unknown> | undefined;
    userId?: string | undefined;
    /** GoTrue's sms_type when it sets one (`mfa`, `phone_change`). */
    smsType?: string | undefined;
    ip?: string | undefined;
  };
};
export type SmsSender = {
  kind: string;
  /** Resolves with the provider's message id; throws when the provider refused the message. */
  send(message: SmsMessage): Promise<{ messageId: string | undefined }>;
};

/** Development: a row in the outbox, already "sent", so the dev mailbox shows it and SMTP never sees it. */
export function devMailboxSms(db: Db): SmsSender {
  return {
    kind: 'dev',
    async send(m) {
      const body = `SMS to ${m.to}\n\n${m.body}`;
      const id = await enqueueMail(db, {
        userId: null,
        kind: 'sms',
        to: m.to,
        subject: `SMS to ${m.to}`,
        text: body,
        html: `<p><strong>SMS to ${m.to}</strong> (development: not delivered)</p><pre>${m.body.replace(/[<>&]/g, '')}</pre>`,
        status: 'sent',
      });
      return { messageId: id };
    },
  };
}

export function webhookSms(url: string, token: string | undefined, fetchImpl = fetch): SmsSender {
  return {
    kind: 'webhook',
    async send(m) {
      const res = await fetchImpl(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(m),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`SMS webhook answered ${res.status}`);
      const json = (await res.json().catch(() => ({}))) as { message_id?: unknown; id?: unknown };
      const id = json.message_id ?? json.id;
      return { messageId: typeof id === 'string' ? id : undefined };
    },
  };
}

/**
 * No provider (SMS_PROVIDER=none, or production without SMS_PROVIDER): phone factors are disabled,
 * and a code for a number outside SMS_TEST_OTP gets GoTrue's answer when it has no provider.
 */
export const noSms: SmsSender = {
  kind: 'none',
  async send() {
    throw new AuthError('sms_send_failed', 'Unable to get SMS provider');
  },
};
