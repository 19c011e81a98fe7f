// The SMS and WhatsApp senders the settings name (SMS_PROVIDER, WHATSAPP_PROVIDER). config.ts has
// already refused a chosen provider without its credentials, so a missing block here means "not chosen".
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { msegatSms } from './msegat.ts';
import type { FetchLike } from './provider-call.ts';
import { devMailboxSms, noSms, type SmsSender, webhookSms } from './sender.ts';
import { taqnyatSms } from './taqnyat.ts';
import { twilioSms } from './twilio.ts';
import { unifonicSms } from './unifonic.ts';
import { metaWhatsApp, taqnyatWhatsApp, type WhatsAppSender } from './whatsapp.ts';

export function smsSenderFromConfig(config: Config, db: Db, fetchImpl?: FetchLike): SmsSender {
  const d = config.delivery;
  const m = config.mfa;
  const timeoutMs = d.timeoutMs;
  const senderId = d.senderId ?? '';
  switch (m.smsProvider) {
    case 'webhook':
      return m.smsWebhookUrl ? webhookSms(m.smsWebhookUrl, m.smsWebhookToken) : noSms;
    case 'dev':
      return devMailboxSms(db);
    case 'unifonic':
      return d.unifonic ? unifonicSms({ ...d.unifonic, senderId, timeoutMs }, fetchImpl) : noSms;
    case 'taqnyat':
      return d.taqnyat ? taqnyatSms({ ...d.taqnyat, senderId, timeoutMs }, fetchImpl) : noSms;
    case 'msegat':
      return d.msegat ? msegatSms({ ...d.msegat, senderId, timeoutMs }, fetchImpl) : noSms;
    case 'twilio':
      return d.twilio ? twilioSms({ ...d.twilio, timeoutMs }, fetchImpl) : noSms;
    default:
      return noSms;
  }
}

export function whatsAppSenderFromConfig(config: Config, fetchImpl?: FetchLike): WhatsAppSender | undefined {
  const w = config.delivery.whatsapp;
  const timeoutMs = config.delivery.timeoutMs;
  if (w?.provider === 'meta') return metaWhatsApp({ ...w, timeoutMs }, fetchImpl);
  if (w?.provider === 'taqnyat') return taqnyatWhatsApp({ ...w, timeoutMs }, fetchImpl);
  return undefined;
}
