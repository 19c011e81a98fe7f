// WhatsApp codes through an approved authentication template: the code is the body parameter and
// the copy-code button's parameter (Meta requires both), in the visitor's language (`ar` / `en`).
//   meta:    WhatsApp Cloud API, POST {base}/{phone-number-id}/messages, Bearer token.
//            https://developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates/
//   taqnyat: Taqnyat's WhatsApp Business API, POST {base}/wa/v2/messages/, Bearer token, the same
//            Cloud-API message body (Taqnyat is a Meta business solution provider and passes it on).
//            https://dev.taqnyat.sa/en/doc/whatsapp/
// A number without WhatsApp is refused by the API with a 4xx (e.g. Meta's 131026 when it knows at
// once); either way the caller falls back to SMS.
import type { MailLocale } from '../mail/locale.ts';
import { type FetchLike, postToProvider } from './provider-call.ts';

export type WhatsAppSender = {
  kind: string;
  send(m: { to: string; code: string; locale: MailLocale }): Promise<{ messageId: string | undefined }>;
};

function templateMessage(to: string, template: string, code: string, locale: MailLocale) {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: to.replace(/^\+/, ''),
    type: 'template',
    template: {
      name: template,
      language: { code: locale },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: code }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
      ],
    },
  };
}

function cloudApiSender(
  kind: string,
  url: string,
  token: string,
  template: string,
  timeoutMs: number,
  fetchImpl?: FetchLike,
): WhatsAppSender {
  return {
    kind,
    async send(m) {
      const json = await postToProvider(
        `whatsapp-${kind}`,
        url,
        {
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify(templateMessage(m.to, template, m.code, m.locale)),
        },
        { timeoutMs, fetchImpl },
      );
      const messages = Array.isArray(json.messages) ? (json.messages as Record<string, unknown>[]) : [];
      return { messageId: typeof messages[0]?.id === 'string' ? (messages[0].id as string) : undefined };
    },
  };
}

export function metaWhatsApp(
  s: { baseUrl: string; phoneNumberId: string; token: string; template: string; timeoutMs: number },
  fetchImpl?: FetchLike,
): WhatsAppSender {
  const url = `${s.baseUrl}/${encodeURIComponent(s.phoneNumberId)}/messages`;
  return cloudApiSender('meta', url, s.token, s.template, s.timeoutMs, fetchImpl);
}

export function taqnyatWhatsApp(
  s: { baseUrl: string; token: string; template: string; timeoutMs: number },
  fetchImpl?: FetchLike,
): WhatsAppSender {
  return cloudApiSender(
    'taqnyat',
    `${s.baseUrl}/wa/v2/messages/`,
    s.token,
    s.template,
    s.timeoutMs,
    fetchImpl,
  );
}
