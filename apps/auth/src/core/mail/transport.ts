import nodemailer from 'nodemailer';

export type OutgoingMail = { from: string; to: string; subject: string; text: string; html: string };
export type MailTransport = {
  kind: 'smtp' | 'dev-mailbox';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
};

/** SMTP through nodemailer (smtp:// or smtps://, credentials in the URL). */
export function smtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } as object);
  return {
    kind: 'smtp',
    async send(mail) {
      await transporter.sendMail(mail);
    },
    close() {
      transporter.close();
    },
  };
}

/**
 * Development: the outbox row itself is the mailbox (see features/ops/dev-mailbox.routes.ts); nothing
 * leaves the machine.
 */
export function devMailboxTransport(): MailTransport {
  return { kind: 'dev-mailbox', async send() {}, close() {} };
}
