import type { Config } from '../config.ts';
import type { KeyStore } from '../crypto/jwt.ts';
import type { Database, Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { MailDispatcher } from './mail/dispatcher.ts';
import type { MailTemplates } from './mail/templates.ts';
import type { SmsSender } from './sms/sender.ts';

/** Everything domain functions and routes depend on, passed explicitly (no module singletons). */
export type Deps = {
  config: Config;
  database: Database;
  db: Db;
  keys: KeyStore;
  /** HMAC keys generated on first start and kept in the database. */
  secrets: { refreshChain: string; otp: string };
  logger: Logger;
  clock: () => Date;
  mail: MailDispatcher;
  /** Every message's design in each language, prepared at start-up (core/mail/templates.ts). */
  mailTemplates: MailTemplates;
  /** Phone MFA codes (core/sms/sender.ts). */
  sms: SmsSender;
};

/** Facts about the caller that domain functions need (rate-limit keys, audit, sessions). */
export type RequestMeta = { ip: string; userAgent: string | undefined; requestId: string };
