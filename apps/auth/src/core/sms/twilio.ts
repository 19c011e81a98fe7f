// Twilio Programmable Messaging, with GoTrue's settings (SMS_TWILIO_ACCOUNT_SID, _AUTH_TOKEN,
// _MESSAGE_SERVICE_SID): POST {base}/2010-04-01/Accounts/{sid}/Messages.json, HTTP basic auth
// (account SID : auth token), form-encoded To, MessagingServiceSid, Body.
// https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource
import { type FetchLike, postToProvider, safeCode } from './provider-call.ts';
import type { SmsSender } from './sender.ts';

export function twilioSms(
  settings: {
    accountSid: string;
    authToken: string;
    messageServiceSid: string;
    baseUrl: string;
    timeoutMs: number;
  },
  fetchImpl?: FetchLike,
): SmsSender {
  const basic = Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64');
  return {
    kind: 'twilio',
    async send(m) {
      const json = await postToProvider(
        'twilio',
        `${settings.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`,
        {
          headers: {
            authorization: `Basic ${basic}`,
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
          },
          body: new URLSearchParams({
            To: m.to,
            MessagingServiceSid: settings.messageServiceSid,
            Body: m.body,
          }).toString(),
        },
        { timeoutMs: settings.timeoutMs, fetchImpl },
      );
      return { messageId: safeCode(json.sid) };
    },
  };
}
