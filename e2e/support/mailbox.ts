import type { ParsedMail } from '../../apps/auth/test/support/mime.ts';
import { startSmtpInbox } from '../../apps/auth/test/support/smtp-inbox.ts';

export type ReceivedMail = ParsedMail;

/** A real SMTP server on an ephemeral port (the service suite's), with the e2e suite's helpers. */
export async function startMailbox() {
  const smtp = await startSmtpInbox();
  return {
    port: smtp.port,
    /** The first message to `to` (the same one on every call), waiting up to `timeoutMs`. */
    waitFor: (to: string, timeoutMs = 15_000): Promise<ReceivedMail> =>
      smtp.next(to, { timeoutMs, consume: false }),
    /**
     * The next message to `to` whose verify link has this `type` (signup, recovery, …), not returned
     * by an earlier call of this method.
     */
    nextOfType: (to: string, type: string, timeoutMs = 15_000): Promise<ReceivedMail> =>
      smtp.next(to, {
        timeoutMs,
        consume: true,
        predicate: (m) =>
          m.links.some((l) => l.includes('/auth/v1/verify?') && new URL(l).searchParams.get('type') === type),
      }),
    /** The first link of a message that points at the given origin's /auth/v1/verify. */
    verifyLink(mail: ReceivedMail, origin: string): string {
      const link = mail.links.find((l) => l.startsWith(`${origin}/auth/v1/verify?`));
      if (!link) throw new Error(`no verify link in the message:\n${mail.text.slice(0, 2000)}`);
      return link;
    },
    close: smtp.close,
  };
}

export type Mailbox = Awaited<ReturnType<typeof startMailbox>>;
