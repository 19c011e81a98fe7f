import type { Db } from '../../db/client.ts';
import { claimDueMail, markFailed, markSent, type OutboxMessage } from '../../db/outbox.repo.ts';
import type { Logger } from '../../logger.ts';
import type { MailTransport } from './transport.ts';

export type MailDispatcher = {
  /** Call after a transaction that enqueued mail has committed: sends it now, in the background. */
  kick(): void;
  /** Resolves when the current drain (if any) is over (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
};

/** 5 s, 10 s, 20 s … capped at 10 min. */
export function retryDelayMs(attempt: number): number {
  return Math.min(5_000 * 2 ** (attempt - 1), 600_000);
}

/**
 * When to try a failed message again, or null to give up. It is retried for as long as the link and
 * code inside it still work (`lifetimeMs`, MAILER_OTP_EXP): an SMTP outage shorter than that loses no
 * confirmation or recovery mail, and a mail whose link has expired is useless (/resend makes a fresh one).
 */
export function nextAttemptAt(createdAt: Date, attempts: number, now: Date, lifetimeMs: number): Date | null {
  const at = now.getTime() + retryDelayMs(attempts);
  return at < createdAt.getTime() + lifetimeMs ? new Date(at) : null;
}

/**
 * Sends outbox rows after commit, retries failures with backoff, and polls for due retries. The
 * account is never lost to a mail failure: the row stays, and /resend makes a fresh one.
 */
export function createMailDispatcher(opts: {
  db: Db;
  transport: MailTransport;
  from: string;
  logger: Logger;
  clock: () => Date;
  /** How long the links and codes in a message stay valid (MAILER_OTP_EXP), in ms. */
  linkLifetimeMs: number;
  /**
   * The send-email hook (core/hooks/send-hooks.ts), when on: a message written with GoTrue's
   * email_data goes to it instead of the transport, with the same retries.
   */
  sendHook?:
    | ((m: { userId: string | null; emailData: Record<string, unknown> }) => Promise<void>)
    | undefined;
  /**
   * Phone codes waiting for a retry (core/sms/code-delivery.ts) share the outbox and its back-off;
   * they are retried while their code is valid, and an error with `permanent: true` ends them at once.
   */
  sms?:
    | {
        kind: string;
        send(m: OutboxMessage): Promise<void>;
        lifetimeMs(m: OutboxMessage): number;
      }
    | undefined;
  pollMs?: number;
}): MailDispatcher {
  const { db, transport, from, logger, clock } = opts;
  // Bodies leave the database once sent, except in the dev mailbox, which is where they are read
  // (a queued phone code is never read there: always blanked).
  const scrub = transport.kind !== 'dev-mailbox';
  const isSmsRow = (m: OutboxMessage) => opts.sms !== undefined && m.kind === opts.sms.kind;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  async function drain(): Promise<void> {
    do {
      again = false;
      const batch = await claimDueMail(db, clock(), 20);
      await Promise.all(
        batch.map(async (m) => {
          try {
            if (opts.sms && isSmsRow(m)) await opts.sms.send(m);
            else if (m.hookEmailData && opts.sendHook)
              await opts.sendHook({ userId: m.userId, emailData: m.hookEmailData });
            else
              await transport.send({ from, to: m.toAddress, subject: m.subject, text: m.text, html: m.html });
            await markSent(db, m.id, clock(), scrub || isSmsRow(m));
            logger.info({ mailId: m.id, kind: m.kind, transport: transport.kind }, 'mail sent');
          } catch (err) {
            const permanent = (err as { permanent?: unknown }).permanent === true;
            const lifetime = opts.sms && isSmsRow(m) ? opts.sms.lifetimeMs(m) : opts.linkLifetimeMs;
            const next = permanent ? null : nextAttemptAt(m.createdAt, m.attempts, clock(), lifetime);
            logger.warn(
              { mailId: m.id, kind: m.kind, attempt: m.attempts, err: (err as Error).message, retryAt: next },
              'mail send failed',
            );
            await markFailed(db, m.id, (err as Error).message, next, scrub || isSmsRow(m)).catch(() => {});
          }
        }),
      );
      if (batch.length === 20) again = true;
    } while (again && !stopped);
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err) => logger.warn({ err: (err as Error).message }, 'mail dispatcher drain failed'))
      .finally(() => {
        running = undefined;
        if (again && !stopped) kick();
      });
  }

  const timer = setInterval(kick, opts.pollMs ?? 5_000);
  timer.unref();

  return {
    kick,
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (running) await running;
      transport.close();
    },
  };
}
