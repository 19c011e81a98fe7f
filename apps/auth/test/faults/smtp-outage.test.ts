// SMTP down (issue 6): sign-up still commits and answers; the message waits in the outbox and is
// delivered once SMTP is back; nothing is sent twice.
import { sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { queryRows } from '../../src/db/client.ts';
import { createLogger } from '../../src/logger.ts';
import { type RunningServer, startServer } from '../../src/run-service.ts';
import { freePort, sleep, uniqueEmail } from './support.ts';

let server: RunningServer | undefined;
let smtp: SMTPServer | undefined;
afterAll(async () => {
  await server?.close();
  if (smtp) await new Promise<void>((r) => smtp?.close(() => r()));
});

it('commits the sign-up while SMTP is down and delivers the confirmation exactly once when it is back', async () => {
  const smtpPort = await freePort(); // nothing listens there yet
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: 'memory://',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    MAILER_AUTOCONFIRM: 'false',
    LOG_LEVEL: 'silent',
    EMAIL_RESPONSE_FLOOR_MS: '0',
  });
  server = await startServer(config, { host: '127.0.0.1', site: false, logger: createLogger('silent') });
  const db = server.deps.db;
  const email = uniqueEmail('smtpdown');
  const res = await fetch(`${server.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: config.ANON_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse' }),
  });
  expect(res.status).toBe(200);
  expect((await res.json()).email).toBe(email);

  // The user exists; the mail failed once and waits for a retry.
  await server.deps.mail.idle();
  await sleep(300);
  const [pending] = await queryRows<{ status: string; attempts: number }>(
    db,
    sql`select status, attempts from mail_outbox where to_address = ${email}`,
  );
  expect(pending?.status).not.toBe('sent');
  expect(pending?.attempts).toBeGreaterThanOrEqual(1);
  const users = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from users where email = ${email}`,
  );
  expect(users[0]?.n).toBe(1);

  // SMTP comes back on the same port.
  const received: string[] = [];
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        for (const r of session.envelope.rcptTo) received.push(r.address.toLowerCase());
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp?.listen(smtpPort, '127.0.0.1', () => r()));
  const backAt = performance.now();
  while (!received.includes(email) && performance.now() - backAt < 30_000) await sleep(100);
  const deliveredAfter = performance.now() - backAt;
  expect(received).toContain(email);
  // Let every retry timer and poll run again: still exactly one message.
  await sleep(6000);
  await server.deps.mail.idle();
  expect(received.filter((r) => r === email)).toHaveLength(1);
  const [sent] = await queryRows<{ status: string }>(
    db,
    sql`select status from mail_outbox where to_address = ${email}`,
  );
  expect(sent?.status).toBe('sent');
  console.log(`SMTP back → confirmation delivered after ${deliveredAfter.toFixed(0)} ms; sent once`);
});
