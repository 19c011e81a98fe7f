// A real SMTP server (the `smtp-server` package) on an ephemeral loopback port that keeps and parses
// every message it receives. Used by the service's test harness and by the end-to-end suite.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { type ParsedMail, parseMail } from './mime.ts';

export type SmtpInbox = {
  port: number;
  /** Every message received so far (one entry per recipient). */
  all(): ParsedMail[];
  /**
   * Resolves with the first message to `to` matching `predicate`, waiting up to `timeoutMs`.
   * With `consume`, a message is handed out once, so successive calls return successive messages.
   */
  next(
    to: string,
    options?: { predicate?: (m: ParsedMail) => boolean; timeoutMs?: number; consume?: boolean },
  ): Promise<ParsedMail>;
  close(): Promise<void>;
};

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const messages: ParsedMail[] = [];
  const taken = new Set<ParsedMail>();
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        for (const rcpt of session.envelope.rcptTo) messages.push(parseMail(raw, rcpt.address.toLowerCase()));
        for (const w of waiters) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    all: () => [...messages],
    next(to, { predicate = () => true, timeoutMs = 10_000, consume = true } = {}) {
      const want = to.toLowerCase();
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = messages.find((x) => x.to === want && !taken.has(x) && predicate(x));
          if (!m) return false;
          if (consume) taken.add(m);
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
