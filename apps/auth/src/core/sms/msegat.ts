// Msegat SMS: POST {base}/gw/sendsms.php with userName, apiKey, numbers, userSender, msg.
// https://msegat.docs.apiary.io/ (and the "MSEGAT Communication Platform API" Postman collection).
// Encoding: the documented examples send a JSON body; we send JSON (UTF-8) and name the encoding
// with `msgEncoding: "UTF8"`, the documented default, so Arabic text is never read as windows-1256.
// Msegat answers HTTP 200 with its own code: "1" or "M0000" is success, anything else a refusal
// (wrong key, no balance, unregistered sender).
import { type FetchLike, postToProvider, SmsProviderError, safeCode } from './provider-call.ts';
import type { SmsSender } from './sender.ts';

const SUCCESS = new Set(['1', 'M0000']);

export function msegatSms(
  settings: { userName: string; apiKey: string; baseUrl: string; senderId: string; timeoutMs: number },
  fetchImpl?: FetchLike,
): SmsSender {
  return {
    kind: 'msegat',
    async send(m) {
      const json = await postToProvider(
        'msegat',
        `${settings.baseUrl}/gw/sendsms.php`,
        {
          headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
          body: JSON.stringify({
            userName: settings.userName,
            apiKey: settings.apiKey,
            numbers: m.to.replace(/^\+/, ''),
            userSender: settings.senderId,
            msg: m.body,
            msgEncoding: 'UTF8',
          }),
        },
        { timeoutMs: settings.timeoutMs, fetchImpl },
      );
      const code = safeCode(json.code);
      if (!code || !SUCCESS.has(code))
        throw new SmsProviderError('msegat', true, 200, `refused the message (${code ?? 'no code'})`);
      return { messageId: safeCode(json.id) };
    },
  };
}
