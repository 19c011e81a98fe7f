import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from './client.ts';
import { mailOutbox } from './schema.ts';

export type OutboxMessage = typeof mailOutbox.$inferSelect;

export async function enqueueMail(
  db: DbOrTx,
  m: {
    userId: string | null;
    kind: string;
    to: string;
    subject: string;
    text: string;
    html: string;
    /** 'sent' for records that only exist for the dev mailbox (development SMS). */
    status?: 'pending' | 'sent';
    /** GoTrue's email_data, when the send-email hook delivers this message (see schema.ts). */
    hookEmailData?: Record<string, unknown> | undefined;
    /** Not before (default now): a code's SMS fallback waits here for WhatsApp's verdict. */
    nextAttemptAt?: Date | undefined;
  },
): Promise<string> {
  const id = randomUUID();
  await db.insert(mailOutbox).values({
    id,
    userId: m.userId,
    kind: m.kind,
    toAddress: m.to,
    subject: m.subject,
    text: m.text,
    html: m.html,
    ...(m.status ? { status: m.status } : {}),
    ...(m.hookEmailData ? { hookEmailData: m.hookEmailData } : {}),
    ...(m.nextAttemptAt ? { nextAttemptAt: m.nextAttemptAt } : {}),
  });
  return id;
}

/**
 * WhatsApp's verdict on a code it accepted (core/sms/code-delivery.ts keeps the SMS fallback as a
 * pending row of `kind`, to `to`, subject `whatsapp <message id>`, due when the code expires):
 * 'failed' makes it due now without its `awaiting` mark (the dispatcher then texts the code);
 * 'delivered' settles it as sent, its body blanked. One conditional UPDATE, so a verdict that
 * arrives twice, late, or for a row the dispatcher holds changes nothing. Returns whether it did.
 */
export async function settleWhatsAppFallback(
  db: DbOrTx,
  w: { kind: string; to: string; messageId: string; verdict: 'failed' | 'delivered'; now: Date },
): Promise<boolean> {
  const where = sql`kind = ${w.kind} and to_address = ${w.to} and subject = ${`whatsapp ${w.messageId}`}
    and status = 'pending' and next_attempt_at > ${w.now.toISOString()}::timestamptz`;
  const rows = await queryRows<{ id: string }>(
    db,
    w.verdict === 'failed'
      ? sql`update mail_outbox set next_attempt_at = ${w.now.toISOString()}::timestamptz,
          text = (text::jsonb - 'awaiting')::text where ${where} returning id`
      : sql`update mail_outbox set status = 'sent', sent_at = ${w.now.toISOString()}::timestamptz,
          text = '', html = '' where ${where} returning id`,
  );
  return rows.length > 0;
}

/**
 * Atomically claims due messages (status → sending) so two dispatchers (or two instances) never
 * send one message twice. A claim older than `staleAfterSec` (a crash mid-send) is claimable again.
 */
export async function claimDueMail(
  db: DbOrTx,
  now: Date,
  limit: number,
  staleAfterSec = 300,
): Promise<OutboxMessage[]> {
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`update mail_outbox set status = 'sending', claimed_at = ${now.toISOString()}::timestamptz, attempts = attempts + 1
      where id in (
        select id from mail_outbox
        where (status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz)
           or (status = 'sending' and claimed_at < ${new Date(now.getTime() - staleAfterSec * 1000).toISOString()}::timestamptz)
        order by next_attempt_at limit ${limit}
        for update skip locked)
      returning id`,
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => String(r.id));
  return db
    .select()
    .from(mailOutbox)
    .where(
      sql`${mailOutbox.id} in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`,
    );
}

/**
 * `scrub` blanks the body once it is out of our hands (sent, or given up): it holds a live link token
 * and code, which must not outlive their purpose in the database or its backups (tokens themselves
 * are stored hashed). The dev mailbox keeps bodies: it is where they are read.
 */
const blankBody = (scrub: boolean) => (scrub ? { text: '', html: '', hookEmailData: null } : {});

export async function markSent(db: DbOrTx, id: string, now: Date, scrub: boolean): Promise<void> {
  await db
    .update(mailOutbox)
    .set({ status: 'sent', sentAt: now, lastError: null, ...blankBody(scrub) })
    .where(eq(mailOutbox.id, id));
}

/** A failed send: retried at `nextAttemptAt`, or given up (null), its body then scrubbed as in markSent. */
export async function markFailed(
  db: DbOrTx,
  id: string,
  error: string,
  nextAttemptAt: Date | null,
  scrub: boolean,
): Promise<void> {
  await db
    .update(mailOutbox)
    .set(
      nextAttemptAt
        ? { status: 'pending', lastError: error.slice(0, 500), nextAttemptAt }
        : { status: 'failed', lastError: error.slice(0, 500), ...blankBody(scrub) },
    )
    .where(eq(mailOutbox.id, id));
}

/** Messages waiting to go out (pending or being sent): the outbox queue depth /metrics reports. */
export async function countQueuedMail(db: DbOrTx): Promise<number> {
  // Served by mail_outbox_pending_idx (a partial index on exactly these statuses).
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`select count(*)::int as n from mail_outbox where status in ('pending', 'sending')`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** The outbox kinds a reader may see: all of them, or only these (e.g. `['sms']`). */
export type MailKinds = 'all' | readonly string[];
const ofKinds = (kinds: MailKinds) => (kinds === 'all' ? undefined : inArray(mailOutbox.kind, [...kinds]));

export async function listMail(
  db: DbOrTx,
  opts: { limit: number; to?: string | undefined; kinds: MailKinds },
): Promise<OutboxMessage[]> {
  return db
    .select()
    .from(mailOutbox)
    .where(and(opts.to ? eq(mailOutbox.toAddress, opts.to) : undefined, ofKinds(opts.kinds)))
    .orderBy(desc(mailOutbox.createdAt))
    .limit(opts.limit);
}

export async function getMail(db: DbOrTx, id: string, kinds: MailKinds): Promise<OutboxMessage | undefined> {
  const [row] = await db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.id, id), ofKinds(kinds)));
  return row;
}
