import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createHttpApp } from './app.ts';
import { type Config, ConfigError, loadConfig, loadDotEnv } from './config.ts';
import type { Deps } from './core/deps.ts';
import { createMailDispatcher } from './core/mail/dispatcher.ts';
import { createMailTemplates } from './core/mail/templates.ts';
import { devMailboxTransport, type MailTransport, smtpTransport } from './core/mail/transport.ts';
import { devMailboxSms, noSms, type SmsSender, webhookSms } from './core/sms/sender.ts';
import { KeyStore } from './crypto/jwt.ts';
import { databaseOptions, openDatabase } from './db/client.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { migrate } from './db/migrate.ts';
import { deleteOldMail } from './db/outbox.repo.ts';
import { deleteOldCounters } from './db/rate-limits.repo.ts';
import { getOrCreateSecret } from './db/secrets.repo.ts';
import { ensureSigningKey, listSigningKeys } from './db/signing-keys.repo.ts';
import { sweepExpiredFactors } from './features/mfa/factors.ts';
import { createLogger, type Logger } from './logger.ts';

export type StartOptions = {
  logger?: Logger;
  /** Serve the site as the fallback (default: true when config.SITE_DIR has an index.html). */
  site?: boolean;
  host?: string;
  clock?: () => Date;
  mailTransport?: MailTransport;
  smsSender?: SmsSender;
};

export type RunningServer = {
  url: string;
  port: number;
  deps: Deps;
  /**
   * Stops listening at once (new connections are refused). With graceMs, requests in flight get that
   * long to finish (idle keep-alive connections close now); without, every connection closes now.
   */
  close(options?: { graceMs?: number }): Promise<void>;
};

/** Logged at start when production runs on PGlite with PGLITE_FSYNC=false (see db/pglite-durable.ts). */
export const PGLITE_DURABILITY_WARNING =
  'PGLITE_FSYNC=false in production: the embedded database survives a crash of this process, but not ' +
  'a power cut or an operating-system crash. Unset it, or set DATABASE_URL to a PostgreSQL server.';

/** Opens the database, migrates, ensures keys and starts listening. Used by main, tests and benches. */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const clock = opts.clock ?? (() => new Date());
  // First: a broken operator template (MAILER_TEMPLATES_*) stops start-up before anything is opened.
  const mailTemplates = await createMailTemplates(config);
  const database = await openDatabase(databaseOptions(config));
  try {
    await migrate(database);
    await ensureSigningKey(database.db);
  } catch (err) {
    await database.close();
    throw err;
  }
  const keys = new KeyStore(() => listSigningKeys(database.db));
  await keys.reload();
  const secrets = {
    refreshChain: await getOrCreateSecret(database.db, 'refresh_token_chain'),
    otp: await getOrCreateSecret(database.db, 'email_otp'),
  };
  const transport =
    opts.mailTransport ?? (config.SMTP_URL ? smtpTransport(config.SMTP_URL) : devMailboxTransport());
  const mail = createMailDispatcher({
    db: database.db,
    transport,
    from: config.MAIL_FROM,
    logger,
    clock,
    linkLifetimeMs: config.MAILER_OTP_EXP * 1000,
  });
  const m = config.mfa;
  const sms =
    opts.smsSender ??
    (m.smsProvider === 'webhook' && m.smsWebhookUrl
      ? webhookSms(m.smsWebhookUrl, m.smsWebhookToken)
      : m.smsProvider === 'dev'
        ? devMailboxSms(database.db)
        : noSms);
  const deps: Deps = {
    config,
    database,
    db: database.db,
    keys,
    secrets,
    logger,
    clock,
    mail,
    mailTemplates,
    sms,
  };
  mail.kick(); // anything left from a previous run

  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const withSite = opts.site ?? existsSync(join(config.SITE_DIR, 'index.html'));
  const app = createHttpApp(deps, {
    site: withSite
      ? {
          dir: config.SITE_DIR,
          // '' = the page's own origin (the API is served beside the site).
          runtimeConfig: { supabaseUrl: config.SUPABASE_URL ?? '', anonKey: config.ANON_KEY },
          hsts: config.SITE_URL.startsWith('https://'),
        }
      : undefined,
  });

  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: config.PORT, hostname: opts.host ?? config.HOST }, () =>
        resolve(s),
      );
      s.once('error', reject);
    });
  } catch (err) {
    await mail.stop();
    await database.close();
    throw err;
  }
  // Bounded request time, as GoTrue's 10 s API_MAX_REQUEST_DURATION (slow-loris bodies included).
  server.setTimeout?.(30_000);
  if ('requestTimeout' in server) (server as unknown as { requestTimeout: number }).requestTimeout = 15_000;
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? config.HOST;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`;

  const sweeper = setInterval(() => {
    deleteOldCounters(database.db, new Date(clock().getTime() - 2 * 86400_000)).catch(() => {});
    // Sent and abandoned mail goes after 7 days: long enough to answer "did it go out?".
    deleteOldMail(database.db, new Date(clock().getTime() - 7 * 86400_000)).catch(() => {});
  }, 600_000);
  sweeper.unref();
  // Abandoned MFA enrolments go soon after MFA_FACTOR_EXPIRY (they are refused from that moment on;
  // the sweep keeps them from piling up and from being listed in GET /user).
  const factorSweepMs = Math.min(600, Math.max(30, config.mfa.factorExpiry)) * 1000;
  const factorSweeper = setInterval(() => {
    sweepExpiredFactors(deps).catch((err) =>
      logger.warn({ err: (err as Error).message }, 'expired factor sweep failed'),
    );
  }, factorSweepMs);
  factorSweeper.unref();
  // Picks up keys rotated by `npm run keys:rotate` (another process) without a restart; a token
  // naming an unknown kid also triggers a (rate-limited) reload at once.
  const keyReloader = setInterval(() => {
    keys.reload().catch((err) => logger.warn({ err: (err as Error).message }, 'signing key reload failed'));
  }, 60_000);
  keyReloader.unref();

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    deps,
    close(options = {}) {
      closing ??= (async () => {
        clearInterval(sweeper);
        clearInterval(factorSweeper);
        clearInterval(keyReloader);
        const conns = server as unknown as { closeAllConnections?(): void; closeIdleConnections?(): void };
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if (options.graceMs) {
            conns.closeIdleConnections?.();
            // Keep-alive connections that finish a request after this point are idle: close them too.
            const idle = setInterval(() => conns.closeIdleConnections?.(), 100);
            const force = setTimeout(() => conns.closeAllConnections?.(), options.graceMs);
            server.once('close', () => {
              clearInterval(idle);
              clearTimeout(force);
            });
          } else conns.closeAllConnections?.();
        });
        await mail.stop();
        await database.close();
      })();
      return closing;
    },
  };
}

/** The process entry: `node apps/auth/src/main.ts`, or `npm start` (scripts/start.mjs calls it). */
export async function main(): Promise<void> {
  loadDotEnv();
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  let server: RunningServer;
  try {
    server = await startServer(config, { logger });
  } catch (err) {
    const code = (err as { code?: string }).code;
    // A broken operator mail template (MAILER_TEMPLATES_*, MAILER_SUBJECTS_*): its message names the setting.
    if (err instanceof DataDirLockedError || err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      console.error(
        `Cannot listen on port ${config.PORT} (${code === 'EADDRINUSE' ? 'already in use' : 'permission denied'}). Set PORT to another port.`,
      );
      process.exit(1);
    }
    throw err;
  }
  const base = config.SITE_URL;
  // Before the "listening" line: log lines are written asynchronously but in order, so whoever waits
  // for "listening" (an operator's supervisor, our test) has seen the warning by then.
  if (config.production && !config.DATABASE_URL && !config.PGLITE_FSYNC)
    logger.warn({ dataDir: config.DATA_DIR }, PGLITE_DURABILITY_WARNING);
  logger.info(
    {
      url: server.url,
      siteUrl: base,
      database: config.DATABASE_URL ? 'postgres' : `pglite (${config.DATA_DIR})`,
      mail: config.SMTP_URL ? 'smtp' : `${base}/auth/v1/_dev/mailbox`,
    },
    'listening',
  );
  console.log(`\n  Namaa is running at ${server.url}  (auth API: ${server.url}/auth/v1)`);
  if (!config.SMTP_URL) console.log(`  Development mailbox: ${server.url}/auth/v1/_dev/mailbox\n`);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // In-flight requests get 8 s to finish; the 10 s timer above is the hard stop.
    server.close({ graceMs: 8_000 }).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

if (import.meta.main) await main();
