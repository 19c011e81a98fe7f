/**
 * The reusable harness: the REAL service started in-process, a REAL SMTP server receiving its mail,
 * and the official supabase-js client. Used by the auth suites, the fault suite and the e2e suite.
 *
 *   const t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
 *   const sb = t.client();
 *   await sb.auth.signUp({ email, password });
 *   const mail = await t.inbox.waitFor(email);      // { subject, text, html, links, code }
 *   await fetch(mail.links[0], { redirect: 'manual' });
 *   await t.close();
 *
 * Database: PGlite in memory, or when DATABASE_URL is set a fresh PostgreSQL database
 * (namaa_t_<random>) created for this server and dropped by close().
 * Environment overrides are the runtime-contract variables (strings), applied over safe test values.
 */
import { randomBytes } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { type Config, loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { type RunningServer, startServer } from '../../src/run-service.ts';
import { createFreshDatabase } from './fresh-database.ts';
import type { ParsedMail } from './mime.ts';
import { startSmtpInbox } from './smtp-inbox.ts';

export type { ParsedMail } from './mime.ts';

export type Inbox = {
  /** Resolves with the first message to `to` (matching `predicate`) not returned before; waits up to timeoutMs. */
  waitFor(to: string, predicate?: (m: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** Every message received so far. */
  all(): ParsedMail[];
};

export type TestServer = {
  url: string;
  anonKey: string;
  config: Config;
  server: RunningServer;
  inbox: Inbox;
  /** A fresh supabase-js client (no persistence, no auto-refresh) pointed at the server. */
  client(): SupabaseClient;
  /** fetch() against the API with the apikey header set: api('/signup', {method:'POST', ...}). */
  api(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
};

async function startSmtp(): Promise<{ port: number; inbox: Inbox; close(): Promise<void> }> {
  const smtp = await startSmtpInbox();
  const inbox: Inbox = {
    all: smtp.all,
    waitFor: (to, predicate, timeoutMs) => smtp.next(to, { predicate, timeoutMs, consume: true }),
  };
  return { port: smtp.port, inbox, close: smtp.close };
}

export async function startTestServer(
  overrides: Record<string, string> = {},
  /** A logger of the test's own (e.g. writing into a string the test reads). */
  opts: { logger?: Logger } = {},
): Promise<TestServer> {
  const smtp = await startSmtp();
  const baseDbUrl = process.env.DATABASE_URL;
  const database = baseDbUrl ? await createFreshDatabase(baseDbUrl) : undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: 'memory://',
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Namaa <no-reply@namaa.test>',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Every request of a suite comes from 127.0.0.1 and many re-use one address: production rate
    // limits would trip by accident. The rate-limit suites pass their own low values.
    RATE_LIMIT_SIGNIN_PER_IP: '100000',
    RATE_LIMIT_SIGNIN_PER_ACCOUNT: '100000',
    RATE_LIMIT_OTP_PER_IP: '100000',
    RATE_LIMIT_VERIFY_PER_IP: '100000',
    RATE_LIMIT_VERIFY_CODES_PER_ADDRESS: '100000',
    RATE_LIMIT_MFA_PER_IP: '100000',
    RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '1000',
    RATE_LIMIT_MFA_BACKOFF_AFTER: '1000',
    RATE_LIMIT_EMAIL_PER_ADDRESS: '100000',
    RATE_LIMIT_EMAIL_FLOOR: '0',
    RATE_LIMIT_EMAIL_SENT: '100000',
    EMAIL_RESPONSE_FLOOR_MS: '0', // the enumeration suite sets its own
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...overrides,
  };
  // SITE_URL defaults to the server's own origin, known only after listen (port 0): set it then
  // (config is one object read per request, so the running service sees it).
  const config = loadConfig(env);
  let server: RunningServer;
  try {
    server = await startServer(config, {
      host: '127.0.0.1',
      site: false,
      logger: opts.logger ?? createLogger(env.LOG_LEVEL ?? 'silent'),
    });
  } catch (err) {
    await smtp.close();
    await database?.drop();
    throw err;
  }
  if (!overrides.SITE_URL) config.SITE_URL = server.url;
  return {
    url: server.url,
    anonKey: config.ANON_KEY,
    config,
    server,
    inbox: smtp.inbox,
    client: () =>
      createClient(server.url, config.ANON_KEY, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      }),
    api: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('apikey')) headers.set('apikey', config.ANON_KEY);
      if (init.body !== undefined && !headers.has('content-type'))
        headers.set('content-type', 'application/json');
      return fetch(`${server.url}/auth/v1${path}`, { ...init, headers });
    },
    async close() {
      // Each step runs even when an earlier one fails (a test that closed the database itself makes
      // server.close() throw): the test database must never be left behind on the shared server.
      const steps = await Promise.allSettled([server.close(), smtp.close()]);
      await database?.drop();
      const failed = steps.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/** A unique email address per call (tests run in parallel against shared servers). */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
}
