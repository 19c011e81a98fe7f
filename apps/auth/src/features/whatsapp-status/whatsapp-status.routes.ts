import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { safeEqual } from '../../crypto/tokens.ts';
import { AuthError } from '../../errors.ts';
import { applyStatusUpdates, statusUpdates, validMetaSignature } from './meta-status.ts';

// Meta's status payloads are small (a few statuses per call); anything larger is not one.
const MAX_WEBHOOK_BYTES = 256 * 1024;

/**
 * Meta's WhatsApp webhook (ours, not GoTrue's), served only with WHATSAPP_META_APP_SECRET and
 * WHATSAPP_META_WEBHOOK_VERIFY_TOKEN: Meta calls it without our apikey, so it proves itself with
 * the verify token (subscription) and the app secret's signature (every event).
 */
export function whatsappStatusEndpoints(deps: Deps): Endpoint[] {
  const webhook = () => {
    const w = deps.config.delivery.whatsappWebhook;
    if (!w) throw new AuthError('not_found', 'Not found');
    return w;
  };
  return [
    defineEndpoint({
      method: 'get',
      path: '/whatsapp/webhook',
      access: 'public',
      extension: true,
      summary: "Meta's webhook subscription check: answers hub.challenge when hub.verify_token matches",
      query: z.object({
        'hub.mode': z.string(),
        'hub.verify_token': z.string(),
        'hub.challenge': z.string(),
      }),
      responses: { 200: 'hub.challenge, as text', 403: 'wrong verify token', 404: 'webhook not configured' },
      handler: (c, { query }) => {
        const w = webhook();
        const challenge = query('hub.challenge') ?? '';
        if (query('hub.mode') !== 'subscribe' || !safeEqual(query('hub.verify_token') ?? '', w.verifyToken))
          throw new AuthError('no_authorization', 'Webhook verify token mismatch', { status: 403 });
        if (!/^[\w-]{1,256}$/.test(challenge))
          throw new AuthError('validation_failed', 'Invalid hub.challenge');
        return c.text(challenge, 200);
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/whatsapp/webhook',
      // No apikey and no JSON reader: the signature covers the raw bytes, read here, bounded.
      access: 'form',
      extension: true,
      summary:
        "Meta's WhatsApp status events (X-Hub-Signature-256): a failed code message goes out by SMS, a delivered one settles its fallback",
      responses: {
        200: '{}',
        400: 'not a status payload',
        401: 'bad signature',
        404: 'webhook not configured',
      },
      handler: async (c) => {
        const w = webhook();
        if (Number(c.req.header('content-length') ?? '0') > MAX_WEBHOOK_BYTES)
          throw new AuthError('request_entity_too_large');
        const raw = new Uint8Array(await c.req.raw.arrayBuffer());
        if (raw.byteLength > MAX_WEBHOOK_BYTES) throw new AuthError('request_entity_too_large');
        if (!validMetaSignature(w.appSecret, raw, c.req.header('x-hub-signature-256')))
          throw new AuthError('no_authorization', 'Invalid webhook signature');
        let json: unknown;
        try {
          json = JSON.parse(Buffer.from(raw).toString('utf8'));
        } catch {
          throw new AuthError('bad_json');
        }
        const updates = statusUpdates(json);
        if (!updates) throw new AuthError('validation_failed', 'Not a WhatsApp Business status payload');
        await applyStatusUpdates(deps, updates);
        return c.json({});
      },
    }),
  ];
}
