import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../deps.ts';
import { AuthError } from '../errors.ts';
import type { AppEnv } from '../http/context.ts';
import { getMail, listMail } from '../repositories/outbox.ts';

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

/**
 * Development mailbox: every message the service "sent" (the outbox), readable in the browser at
 * /auth/v1/_dev/mailbox. Absent in production (404), so links and codes are never exposed there.
 */
export function devMailboxRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  r.use('/_dev/*', async (c, next) => {
    if (deps.config.production) throw new AuthError('not_found');
    c.header('Cache-Control', 'no-store');
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    await next();
  });
  r.get('/_dev/mailbox.json', async (c) => {
    const to = c.req.query('to')?.toLowerCase();
    const rows = await listMail(deps.db, 50, to);
    return c.json(
      rows.map((m) => ({
        id: m.id,
        to: m.toAddress,
        subject: m.subject,
        text: m.text,
        html: m.html,
        status: m.status,
        created_at: m.createdAt,
      })),
    );
  });
  r.get('/_dev/mailbox/:id', async (c) => {
    const id = c.req.param('id');
    const m = /^[0-9a-f-]{36}$/i.test(id) ? await getMail(deps.db, id) : undefined;
    if (!m) throw new AuthError('not_found');
    return c.html(
      `<!doctype html><meta charset="utf-8"><title>${esc(m.subject)}</title><p><a href="../mailbox">← mailbox</a></p>` +
        `<p><b>To:</b> ${esc(m.toAddress)}<br><b>Subject:</b> ${esc(m.subject)}</p><hr>${m.html}`,
    );
  });
  r.get('/_dev/mailbox', async (c) => {
    const rows = await listMail(deps.db, 100);
    const items = rows
      .map(
        (m) =>
          `<tr><td>${esc(m.createdAt.toISOString())}</td><td>${esc(m.toAddress)}</td><td><a href="mailbox/${m.id}">${esc(m.subject)}</a></td><td>${esc(m.status)}</td></tr>`,
      )
      .join('');
    return c.html(
      `<!doctype html><meta charset="utf-8"><title>Development mailbox</title><style>body{font-family:system-ui;margin:2rem}td,th{padding:.3rem .6rem;text-align:start}</style>` +
        `<h1>Development mailbox</h1><p>Mail is not delivered while SMTP_URL is unset; it is kept here.</p>` +
        `<table><tr><th>Time</th><th>To</th><th>Subject</th><th>Status</th></tr>${items || '<tr><td colspan=4>No mail yet.</td></tr>'}</table>`,
    );
  });
  return r;
}
