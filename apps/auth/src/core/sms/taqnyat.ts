// Taqnyat SMS: POST {base}/v1/messages, `Authorization: Bearer <token>`, JSON {recipients, body,
// sender}; recipients are international digits without "+" or "00". https://dev.taqnyat.sa/en/doc/sms/
import { type FetchLike, postToProvider, safeCode } from './provider-call.ts';
import type { SmsSender } from './sender.ts';

export function taqnyatSms(
  settings: { token: string; baseUrl: string; senderId: string; timeoutMs: number },
  fetchImpl?: FetchLike,
): SmsSender {
  return {
    kind: 'taqnyat',
    async send(m) {
      const json = await postToProvider(
        'taqnyat',
        `${settings.baseUrl}/v1/messages`,
        {
          headers: {
            authorization: `Bearer ${settings.token}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify({
            recipients: [m.to.replace(/^\+/, '')],
            body: m.body,
            sender: settings.senderId,
          }),
        },
        { timeoutMs: settings.timeoutMs, fetchImpl },
      );
      return { messageId: safeCode(json.messageId) };
    },
  };
}
