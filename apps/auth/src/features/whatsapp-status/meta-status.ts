// Meta's WhatsApp status webhook: after the Cloud API accepts a template message it reports the
// message's fate later (`sent`, `delivered`, `read`, `failed`: e.g. 131026 "Message undeliverable"
// for a number without WhatsApp). A `failed` code message goes out by the next channel of
// OTP_CHANNEL_FALLBACK within seconds; `delivered`/`read` settle it. The kept fallback is an outbox
// row (core/sms/code-delivery.ts, keepFallback), so this needs no state of its own.
// https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples#message-status-updates
// https://developers.facebook.com/docs/graph-api/webhooks/getting-started#event-notifications (X-Hub-Signature-256)
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { SMS_OUTBOX_KIND } from '../../core/sms/code-delivery.ts';
import { safeEqual } from '../../crypto/tokens.ts';
import { settleWhatsAppFallback } from '../../db/outbox.repo.ts';

/** `sha256=<hex HMAC-SHA256 of the raw body with the app secret>`, compared in constant time. */
export function validMetaSignature(
  appSecret: string,
  rawBody: Uint8Array,
  header: string | undefined,
): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
  return safeEqual(header.toLowerCase(), expected);
}

const id = z.string().min(1).max(256);
const statusUpdate = z.object({
  id,
  status: z.string().max(32),
  recipient_id: z.string().regex(/^\d{6,15}$/),
});
/** The parts of the payload we read; anything else in it is ignored, as Meta adds fields freely. */
const payloadSchema = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z
    .array(
      z.object({
        changes: z
          .array(
            z.object({
              field: z.string(),
              value: z.object({ statuses: z.array(z.unknown()).max(1000).optional() }).passthrough(),
            }),
          )
          .max(1000),
      }),
    )
    .max(1000),
});

export type StatusUpdate = z.infer<typeof statusUpdate>;

/** The status updates of a webhook body; undefined when it is not Meta's WhatsApp payload. */
export function statusUpdates(json: unknown): StatusUpdate[] | undefined {
  const parsed = payloadSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const out: StatusUpdate[] = [];
  for (const entry of parsed.data.entry)
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      for (const raw of change.value.statuses ?? []) {
        const s = statusUpdate.safeParse(raw);
        if (s.success) out.push(s.data);
      }
    }
  return out;
}

/** Applies each verdict to its kept fallback; returns how many fallbacks were released to go out. */
export async function applyStatusUpdates(
  deps: Pick<Deps, 'db' | 'clock' | 'mail' | 'logger'>,
  updates: StatusUpdate[],
): Promise<number> {
  let released = 0;
  let settled = 0;
  for (const u of updates) {
    const verdict =
      u.status === 'failed'
        ? 'failed'
        : u.status === 'delivered' || u.status === 'read'
          ? 'delivered'
          : undefined;
    if (!verdict) continue;
    const changed = await settleWhatsAppFallback(deps.db, {
      kind: SMS_OUTBOX_KIND,
      to: `+${u.recipient_id}`,
      messageId: u.id,
      verdict,
      now: deps.clock(),
    });
    if (changed && verdict === 'failed') released++;
    if (changed && verdict === 'delivered') settled++;
  }
  if (released > 0) deps.mail.kick();
  // Counts only: a recipient is a phone number, which stays out of the logs.
  if (released + settled > 0) deps.logger.info({ released, settled }, 'WhatsApp status webhook');
  return released;
}
