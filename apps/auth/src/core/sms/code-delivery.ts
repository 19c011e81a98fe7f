// Delivery of a phone code: the channel the visitor asked for, the fallback order, and the outbox.
//   - channel "whatsapp" (with WHATSAPP_PROVIDER set) tries the channels of OTP_CHANNEL_FALLBACK in
//     order; any failure of a channel that has a next one moves on to it at once, so the code comes
//     by SMS within seconds (a code lives a minute or five: waiting out WhatsApp retries would spend
//     its life);
//   - the last channel's transient failure (5xx, timeout, network) goes to the mail outbox and is
//     retried there with its back-off for as long as the code is valid; its permanent failure (a
//     4xx, a refusal in the answer) is GoTrue's `sms_send_failed`, with the provider and status;
//   - each delivery is an audit row `otp_delivered` naming the channel and provider that carried it.
// The dev mailbox, the webhook and the send-SMS hook pass through unchanged (their errors are theirs).
import type { OtpChannel } from '../../config.ts';
import { audit } from '../../db/audit.repo.ts';
import type { Db } from '../../db/client.ts';
import { enqueueMail, type OutboxMessage } from '../../db/outbox.repo.ts';
import { AuthError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { type MailLocale, parseLocale } from '../mail/locale.ts';
import { SmsProviderError } from './provider-call.ts';
import type { SmsMessage, SmsSender } from './sender.ts';
import type { WhatsAppSender } from './whatsapp.ts';

/** The outbox kind of a code waiting for a retry (core/mail/dispatcher.ts hands these back here). */
export const SMS_OUTBOX_KIND = 'sms_retry';

type Pending = {
  channel: OtpChannel;
  requested: OtpChannel;
  to: string;
  body: string;
  code: string;
  locale: MailLocale;
  kind: SmsMessage['kind'];
  userId: string | null;
  /** Epoch ms after which the code is worthless, and retrying stops. */
  validUntil: number;
  /** A kept fallback: the WhatsApp message whose failure would send this one (keepFallback). */
  awaiting?: string;
};

export type CodeDelivery = SmsSender & {
  /** Sends one outbox row written by an earlier transient failure; throws to have it retried. */
  retry(row: OutboxMessage): Promise<void>;
  /** How long an outbox row of ours may still be retried, in ms from its creation. */
  lifetimeMs(row: OutboxMessage): number;
};

export function createCodeDelivery(opts: {
  db: Db;
  sms: SmsSender;
  whatsapp: WhatsAppSender | undefined;
  fallback: OtpChannel[];
  logger: Logger;
  clock: () => Date;
  /** Wakes the outbox dispatcher after a row was queued. */
  kickOutbox: () => void;
  /** Meta's status webhook is configured: keep each WhatsApp code's fallback for its verdict. */
  watchWhatsApp?: boolean;
}): CodeDelivery {
  const { db, sms, whatsapp, logger } = opts;

  async function sendOn(channel: OtpChannel, p: Pending, m?: SmsMessage) {
    if (channel === 'whatsapp' && whatsapp)
      return {
        provider: whatsapp.kind,
        ...(await whatsapp.send({ to: p.to, code: p.code, locale: p.locale })),
      };
    return {
      provider: sms.kind,
      ...(await sms.send(m ?? { to: p.to, body: p.body, kind: p.kind, channel: 'sms' })),
    };
  }

  async function record(p: Pending, channel: OtpChannel, provider: string, retried: boolean) {
    if (!p.userId) return;
    await audit(db, 'otp_delivered', p.userId, null, {
      channel,
      provider,
      requested_channel: p.requested,
      fallback: channel !== p.requested,
      kind: p.kind,
      ...(retried ? { retried: true } : {}),
    }).catch((err) => logger.warn({ err: (err as Error).message }, 'otp_delivered audit row not written'));
  }

  /**
   * WhatsApp accepted the code, but Meta reports "not on WhatsApp" (131026) and other delivery
   * failures only later, through its status webhook (features/whatsapp-status). The next channel's
   * message waits as an outbox row due when the code expires, marked `awaiting` the message id: a
   * 'failed' status makes it due at once (texted within seconds), 'delivered' settles it, and
   * silence lets it lapse unsent.
   */
  async function keepFallback(p: Pending, channel: OtpChannel, messageId: string) {
    await enqueueMail(db, {
      userId: p.userId,
      kind: SMS_OUTBOX_KIND,
      to: p.to,
      subject: `whatsapp ${messageId}`,
      text: JSON.stringify({ ...p, channel, awaiting: messageId }),
      html: '',
      nextAttemptAt: new Date(p.validUntil),
    }).catch((err) => logger.warn({ err: (err as Error).message }, 'WhatsApp fallback not kept'));
  }

  function failure(err: SmsProviderError): AuthError {
    return new AuthError('sms_send_failed', `Error sending confirmation OTP to provider: ${err.message}`);
  }

  return {
    kind: sms.kind,
    async send(m) {
      const requested: OtpChannel = m.channel === 'whatsapp' && whatsapp ? 'whatsapp' : 'sms';
      const order: OtpChannel[] = requested === 'whatsapp' ? opts.fallback : ['sms'];
      const p: Pending = {
        channel: requested,
        requested,
        to: m.to,
        body: m.body,
        code: m.code ?? m.hook?.otp ?? '',
        locale: parseLocale(m.locale) ?? 'en',
        kind: m.kind,
        userId: m.userId ?? m.hook?.userId ?? null,
        validUntil: opts.clock().getTime() + (m.validForSec ?? 300) * 1000,
      };
      for (const [i, channel] of order.entries()) {
        const last = i === order.length - 1;
        try {
          const sent = await sendOn(channel, { ...p, channel }, channel === 'sms' ? m : undefined);
          await record(p, channel, sent.provider, false);
          const next = order[i + 1];
          if (channel === 'whatsapp' && next && opts.watchWhatsApp && sent.messageId)
            await keepFallback(p, next, sent.messageId);
          return { messageId: sent.messageId };
        } catch (err) {
          if (!(err instanceof SmsProviderError)) {
            if (last) throw err;
            logger.warn(
              { err: (err as Error).message, channel },
              'code delivery failed; trying the next channel',
            );
            continue;
          }
          logger.warn(
            {
              channel,
              provider: err.provider,
              status: err.status,
              permanent: err.permanent,
              err: err.message,
            },
            last ? 'code delivery failed' : 'code delivery failed; trying the next channel',
          );
          if (!last) continue;
          if (err.permanent) throw failure(err);
          // Transient: the outbox takes over. The row's body holds the code, as a mail's does, and
          // is blanked once sent or given up.
          const id = await enqueueMail(db, {
            // Erasing the account deletes its waiting code with its mail.
            userId: p.userId,
            kind: SMS_OUTBOX_KIND,
            to: m.to,
            subject: `${channel} to ${m.to}`,
            text: JSON.stringify({ ...p, channel }),
            html: '',
          });
          opts.kickOutbox();
          return { messageId: id };
        }
      }
      throw new AuthError('sms_send_failed');
    },
    async retry(row) {
      const p = JSON.parse(row.text) as Pending;
      // A kept fallback that WhatsApp never reported failed: the code was delivered or has expired;
      // either way nothing is texted (the dispatcher marks the row sent and blanks it).
      if (p.awaiting) return;
      try {
        const sent = await sendOn(p.channel, p);
        await record(p, p.channel, sent.provider, true);
      } catch (err) {
        // A refusal will not change by asking again: give up now (the dispatcher reads `permanent`).
        if (err instanceof SmsProviderError) throw err;
        throw new SmsProviderError(p.channel, false, undefined, (err as Error).message);
      }
    },
    lifetimeMs(row) {
      try {
        const p = JSON.parse(row.text) as Pending;
        return Math.max(0, p.validUntil - row.createdAt.getTime());
      } catch {
        return 0;
      }
    },
  };
}
