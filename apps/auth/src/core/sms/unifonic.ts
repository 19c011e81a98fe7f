// Unifonic SMS: POST {base}/rest/SMS/messages, form-encoded AppSid, SenderID, Recipient (international
// digits, no "+"), Body. https://docs.unifonic.com/docs/sending-sms-api (REST "Send message").
// Unifonic may answer 200 with `success: false` and an `errorCode` (e.g. a wrong AppSid): a refusal.
import { type FetchLike, postToProvider, SmsProviderError, safeCode } from './provider-call.ts';
import type { SmsSender } from './sender.ts';

export function unifonicSms(
  settings: { appSid: string; baseUrl: string; senderId: string; timeoutMs: number },
  fetchImpl?: FetchLike,
): SmsSender {
  return {
    kind: 'unifonic',
    async send(m) {
      const body = new URLSearchParams({
        AppSid: settings.appSid,
        SenderID: settings.senderId,
        Recipient: m.to.replace(/^\+/, ''),
        Body: m.body,
      });
      const json = await postToProvider(
        'unifonic',
        `${settings.baseUrl}/rest/SMS/messages`,
        {
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: body.toString(),
        },
        { timeoutMs: settings.timeoutMs, fetchImpl },
      );
      if (json.success !== true && json.success !== 'true')
        throw new SmsProviderError(
          'unifonic',
          true,
          200,
          `refused the message (${safeCode(json.errorCode) ?? 'no error code'})`,
        );
      const data = (json.data ?? {}) as Record<string, unknown>;
      return { messageId: safeCode(data.MessageID) };
    },
  };
}
