import net, { type AddressInfo } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { serve } from '@hono/node-server';
import { createHttpApp } from './app.ts';
import { releaseStartupHeap } from './boot/release-startup-heap.ts';
import type { EntryChoice } from './boot/service-bundle.ts';
import { type Config, ConfigError, loadConfig, loadDotEnv } from './config.ts';
import type { Deps } from './core/deps.ts';
import { hookSmsSender, sendEmailThroughHook } from './core/hooks/send-hooks.ts';
import { hstsHeader } from './core/http/security-headers.ts';
import { createMailDispatcher } from './core/mail/dispatcher.ts';
import { createMailTemplates } from './core/mail/templates.ts';
import { devMailboxTransport, type MailTransport, smtpTransport } from './core/mail/transport.ts';
import { addMetricsSource } from './core/metrics.ts';
import { openMigratedDatabase } from './core/open-database.ts';
import { assertResidency } from './core/outbound.ts';
import { type CodeDelivery, createCodeDelivery, SMS_OUTBOX_KIND } from './core/sms/code-delivery.ts';
import { smsSenderFromConfig, whatsAppSenderFromConfig } from './core/sms/from-config.ts';
import type { SmsSender } from './core/sms/sender.ts';
import { causeOf, databaseStartupError, StartupError } from './core/startup-error.ts';
import { type Sweeper, startSweeper } from './core/sweep.ts';
import { KeyStore } from './crypto/jwt.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { countQueuedMail } from './db/outbox.repo.ts';
import { getOrCreateSecret } from './db/secrets.repo.ts';
import { ensureSigningKey, listSigningKeys } from './db/signing-keys.repo.ts';
import { sweepExpiredFactors } from './features/mfa/factors.ts';
import { onlineBackupResponder } from './features/ops/online-backup.ts';
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
  /** The periodic sweep of expired and ended rows (core/sweep.ts). */
  sweeper: Sweeper;
  /**
   * Stops listening at once (new connections are refused). With graceMs, requests in flight get that
   * long to finish and keep-alive connections are left for the client to close (each answer now says
   * `Connection: close`); without, every connection closes now.
   */
  close(options?: { graceMs?: number }): Promise<void>;
};

/** Logged at start when production runs on PGlite with PGLITE_FSYNC=false (see db/pglite-durable.ts). */
export const PGLITE_DURABILITY_WARNING =
  'PGLITE_FSYNC=false in production: the embedded database survives a crash of this process, but not ' +
  'a power cut or an operating-system crash. Unset it, or set DATABASE_URL to a PostgreSQL server.';

const USAGE = `Usage: node apps/auth/src/main.ts   (the production entry point; npm start runs it too)

Opens the database (DATABASE_URL, else the embedded one in DATA_DIR), applies pending migrations
(under a PostgreSQL advisory lock, so instances may start together), then serves the auth API at
/auth/v1 and the built site (SITE_DIR) on HOST:PORT. Settings: the environment and .env (README,
"Configuration"). SIGTERM or SIGINT: requests in flight get 8 s, then exit 0. A start-up failure is
one line on stderr naming the setting at fault, exit code 1. See docs/production.md.`;

/** Opens the database, migrates, ensures keys and starts listening. Used by main, tests and benches. */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const clock = opts.clock ?? (() => new Date());
  // First: a configuration that would send personal data abroad against DATA_RESIDENCY stops start-up
  // before anything is called; the operator's own endpoints are put on record (core/outbound.ts).
  const outbound = assertResidency(config);
  if (outbound.operator.length > 0)
    logger.info(
      { residency: config.residency.region || 'off', endpoints: outbound.operator },
      'outbound endpoints',
    );
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  // API_PATH=/ gives every path to the API (GoTrue's own container): no site beside it.
  const withSite = config.API_PATH !== '' && (opts.site ?? existsSync(join(config.SITE_DIR, 'index.html')));
  // CAPTCHA on a served site without its public key would refuse every sign-up and sign-in: the
  // widget cannot be drawn, so no form could ever get a token. An API-only service (its clients
  // bring their own widget and key) needs no key here.
  if (withSite && config.captcha && !config.captcha.siteKey)
    throw new StartupError(
      "SECURITY_CAPTCHA_SITE_KEY: CAPTCHA is on and the site is served, but the site's widget needs the provider's public site key (set it, or serve the API alone with API_PATH=/)",
    );
  // Then: a broken operator template (MAILER_TEMPLATES_*) stops start-up before anything is opened.
  const mailTemplates = await createMailTemplates(config);
  const database = await openMigratedDatabase(config);
  try {
    await ensureSigningKey(database.db);
  } catch (err) {
    await database.close().catch(() => {});
    throw databaseStartupError(config, err);
  }
  const keys = new KeyStore(() => listSigningKeys(database.db), {
    configured: config.jwtKeys,
    audience: config.JWT_AUD,
  });
  await keys.reload();
  const secrets = {
    refreshChain: await getOrCreateSecret(database.db, 'refresh_token_chain'),
    otp: await getOrCreateSecret(database.db, 'email_otp'),
  };
  // What the auth hooks need (core/hooks), before the rest of the deps exist.
  const hookDeps = { config, db: database.db, logger, clock };
  const transport =
    opts.mailTransport ?? (config.SMTP_URL ? smtpTransport(config.SMTP_URL) : devMailboxTransport());
  const mail = createMailDispatcher({
    db: database.db,
    transport,
    from: config.MAIL_FROM,
    logger,
    clock,
    linkLifetimeMs: config.MAILER_OTP_EXP * 1000,
    // Late-bound: the code delivery below is built after the dispatcher it queues into.
    sms: {
      kind: SMS_OUTBOX_KIND,
      send: (row) => sms.retry(row),
      lifetimeMs: (row) => sms.lifetimeMs(row),
    },
    sendHook: config.hooks.SEND_EMAIL ? (m) => sendEmailThroughHook(hookDeps, m) : undefined,
  });
  const sms: CodeDelivery = createCodeDelivery({
    db: database.db,
    sms:
      opts.smsSender ??
      (config.hooks.SEND_SMS ? hookSmsSender(hookDeps) : smsSenderFromConfig(config, database.db)),
    whatsapp: whatsAppSenderFromConfig(config),
    fallback: config.delivery.fallback,
    logger,
    clock,
    kickOutbox: () => mail.kick(),
    watchWhatsApp: config.delivery.whatsappWebhook !== undefined,
  });
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

  const app = createHttpApp(deps, {
    site: withSite
      ? {
          dir: config.SITE_DIR,
          // '' = the page's own origin (the API is served beside the site).
          runtimeConfig: { supabaseUrl: config.SUPABASE_URL ?? '', anonKey: config.ANON_KEY },
          hsts: hstsHeader(config),
          // The pages' CSP lets the provider's script and frame in only when the widget can be shown.
          captchaProvider: config.captcha?.provider,
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
    const code = (err as { code?: string }).code;
    const why =
      code === 'EADDRINUSE'
        ? 'already in use: set PORT to another port'
        : code === 'EACCES'
          ? 'permission denied: ports below 1024 need privileges, set PORT to 1024 or above'
          : code === 'EADDRNOTAVAIL'
            ? `HOST=${opts.host ?? config.HOST} is not an address of this machine`
            : causeOf(err);
    throw new StartupError(`Cannot listen on PORT=${config.PORT} (HOST=${opts.host ?? config.HOST}): ${why}`);
  }
  // Bounded request time, as GoTrue's 10 s API_MAX_REQUEST_DURATION (slow-loris bodies included).
  server.setTimeout?.(30_000);
  if ('requestTimeout' in server) (server as unknown as { requestTimeout: number }).requestTimeout = 15_000;
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? config.HOST;
  const url = `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`;

  // Rotated refresh tokens, ended sessions, expired links, flow states and challenges, old audit
  // rows, rate-limit counters and delivered mail, in small batches (core/sweep.ts).
  const sweeper = startSweeper({ config, database, logger, clock });
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
  // Read at each scrape of /metrics, never in between.
  const removeMetricsSource = addMetricsSource({
    mailQueueDepth: () => countQueuedMail(database.db),
    poolStats: () => database.poolStats(),
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    deps,
    sweeper,
    close(options = {}) {
      closing ??= (async () => {
        const sweepStopped = sweeper.stop();
        clearInterval(factorSweeper);
        clearInterval(keyReloader);
        removeMetricsSource();
        const conns = server as unknown as { closeAllConnections?(): void };
        await new Promise<void>((resolve) => {
          if (options.graceMs) {
            // Stop accepting only (net.Server's close: http.Server's would also cut idle keep-alive
            // connections). A proxy's new connection is then refused, which nginx retries on another
            // instance for any method. Cutting an idle keep-alive connection is what turns a rolling
            // restart into a 502: the proxy may be sending a request on it at that instant, and it
            // retries only idempotent requests once one is sent. Instead every answer from now on
            // says `Connection: close`, so the proxy drops each connection itself after its next
            // answer; idle ones end at the proxy's keep-alive timeout (deploy/nginx sets it below
            // Node's 5 s, which closes the rest); whatever remains at graceMs is cut.
            (
              server as unknown as { prependListener: NodeJS.EventEmitter['prependListener'] }
            ).prependListener(
              'request',
              (_req: unknown, res: { setHeader(name: string, value: string): void }) =>
                res.setHeader('Connection', 'close'),
            );
            net.Server.prototype.close.call(server, () => resolve());
            const force = setTimeout(() => conns.closeAllConnections?.(), options.graceMs);
            server.once('close', () => clearTimeout(force));
          } else {
            server.close(() => resolve());
            conns.closeAllConnections?.();
          }
        });
        await mail.stop();
        await sweepStopped;
        await database.close();
      })();
      return closing;
    },
  };
}

/** The process: `node apps/auth/src/main.ts`, or `npm start` (scripts/start.mjs calls it through main.ts). */
export async function main(
  argv: string[] = process.argv.slice(2),
  entry?: EntryChoice,
  boot: { compileCachePrimed?: boolean } = {},
): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
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
  for (const warning of config.warnings) logger.warn(warning);
  if (entry?.kind === 'source' && (entry.reason === 'stale' || entry.reason === 'unreadable'))
    logger.warn(
      { bundle: entry.dir, reason: entry.reason },
      'the built service bundle does not match the sources: running the sources (a slower start); `npm run build` rebuilds it',
    );
  let server: RunningServer;
  try {
    server = await startServer(config, { logger });
  } catch (err) {
    // One line naming the setting and the cause, never a stack (nor a secret): what an operator
    // reads in `journalctl` or `docker logs` must say what to fix. The stack only at debug level.
    // (A broken operator mail template, MAILER_TEMPLATES_* / MAILER_SUBJECTS_*, is a ConfigError
    // naming its setting.)
    if (err instanceof StartupError || err instanceof DataDirLockedError || err instanceof ConfigError)
      console.error(err.message);
    else {
      console.error(`Start-up failed: ${causeOf(err)}`);
      if (config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace') console.error(err);
    }
    process.exit(1);
  }
  const base = config.SITE_URL;
  // Before the "listening" line: log lines are written asynchronously but in order, so whoever waits
  // for "listening" (an operator's supervisor, our test) has seen the warning by then.
  if (config.production && !config.DATABASE_URL && !config.PGLITE_FSYNC)
    logger.warn({ dataDir: config.DATA_DIR }, PGLITE_DURABILITY_WARNING);
  // The banner is one JSON log line like every other, carrying the public URL (what users reach)
  // apart from the bind address. The friendly text banner is for a developer only: in production
  // stdout holds nothing but JSON lines (what log shippers under systemd or docker expect).
  logger.info(
    {
      url: base,
      authApi: `${base}${config.API_PATH}`,
      listen: `${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${server.port}`,
      database: config.DATABASE_URL ? 'postgres' : `pglite (${config.DATA_DIR})`,
      mail: config.SMTP_URL ? 'smtp' : `${base}${config.API_PATH}/_dev/mailbox`,
      production: config.production,
      runs: entry ? (entry.kind === 'bundle' ? 'bundle' : `source (${entry.reason})`) : 'source',
      ...(boot.compileCachePrimed ? { compileCachePrimed: true } : {}),
    },
    'listening',
  );
  if (!config.production) {
    console.log(`\n  Namaa is running at ${server.url}  (auth API: ${server.url}${config.API_PATH})`);
    if (!config.SMTP_URL)
      console.log(`  Development mailbox: ${server.url}${config.API_PATH}/_dev/mailbox\n`);
  }
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
  // `npm run backup` while the service runs on the embedded database (features/ops/online-backup.ts).
  if (server.deps.database.kind === 'pglite' && !config.DATA_DIR.startsWith('memory://')) {
    const backup = onlineBackupResponder({
      dataDir: config.DATA_DIR,
      client: (server.deps.db as unknown as { $client: PGlite }).$client,
      logger,
    });
    process.on('SIGUSR2', () => void backup());
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  releaseStartupHeap();
}
