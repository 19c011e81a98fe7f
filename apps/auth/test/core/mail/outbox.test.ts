// The mail outbox keeps no live secrets it no longer needs, and the development mailbox shows only
// what was delivered to it: with SMTP_URL set, mail went to real inboxes and its links and codes are
// not readable through the API; dev SMS (SMS_PROVIDER=dev) still are.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../../src/core/mail/dispatcher.ts';
import { mailOutbox } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

describe('retrying a failed send', () => {
  const created = new Date('2030-01-01T00:00:00Z');
  const hour = 3600_000;
  it('backs off 5 s, 10 s, 20 s … up to 10 min between attempts', () => {
    expect(nextAttemptAt(created, 1, created, hour)?.getTime()).toBe(created.getTime() + 5_000);
    expect(nextAttemptAt(created, 3, created, hour)?.getTime()).toBe(created.getTime() + 20_000);
    const later = new Date(created.getTime() + 10 * 60_000);
    expect(nextAttemptAt(created, 20, later, hour)?.getTime()).toBe(later.getTime() + 600_000);
  });
  it('keeps trying while the links inside still work, and gives up after', () => {
    const nearEnd = new Date(created.getTime() + hour - 60_000);
    expect(nextAttemptAt(created, 3, nearEnd, hour)?.getTime()).toBe(nearEnd.getTime() + 20_000);
    expect(nextAttemptAt(created, 12, nearEnd, hour)).toBeNull();
    expect(nextAttemptAt(created, 1, new Date(created.getTime() + hour), hour)).toBeNull();
  });
});

async function outboxRows(t: TestServer, to: string) {
  await t.server.deps.mail.idle();
  return t.server.deps.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, to));
}

describe('with SMTP_URL set', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('blanks a message body once SMTP has taken it, keeping what an operator needs', async () => {
    const email = uniqueEmail('scrubbed');
    expect((await t.client().auth.signUp({ email, password: 'correct horse' })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expect(mail.links[0]).toMatch(/\/verify\?token=/);
    const [row] = await outboxRows(t, email);
    expect(row).toMatchObject({ status: 'sent', text: '', html: '', toAddress: email });
    expect(row?.subject).toMatch(/confirm/i);
  });

  it('shows no mail in the development mailbox, only development SMS', async () => {
    const email = uniqueEmail('private');
    await t.client().auth.signUp({ email, password: 'correct horse' });
    await t.inbox.waitFor(email);
    const [row] = await outboxRows(t, email);
    const list = await t.api(`/_dev/mailbox.json?to=${encodeURIComponent(email)}`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual([]);
    expect((await t.api(`/_dev/mailbox/${row?.id}`)).status).toBe(404);
    const page = await (await t.api('/_dev/mailbox')).text();
    expect(page).not.toContain(email);
    expect(page).toContain('Development SMS only');
  });
});

describe('with SMTP_URL set and no development SMS', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ SMS_PROVIDER: 'webhook', SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has no development mailbox at all', async () => {
    const res = await t.api('/_dev/mailbox.json');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error_code: 'not_found' });
  });
});

describe('without SMTP_URL (the development mailbox)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ SMTP_URL: '' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps the body, which is where the developer reads the link', async () => {
    const email = uniqueEmail('devbox');
    await t.client().auth.signUp({ email, password: 'correct horse' });
    const [row] = await outboxRows(t, email);
    expect(row?.text).toMatch(/\/verify\?token=/);
    const list = (await (await t.api(`/_dev/mailbox.json?to=${encodeURIComponent(email)}`)).json()) as Array<{
      text: string;
    }>;
    expect(list[0]?.text).toMatch(/\/verify\?token=/);
  });
});
