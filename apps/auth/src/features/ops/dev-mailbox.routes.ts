import type { Context } from 'hono';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { getMail, listMail, type MailKinds } from '../../db/outbox.repo.ts';
import { AuthError } from '../../errors.ts';

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

/**
 * What the mailbox may show: only messages that were delivered TO it. With SMTP_URL set, mail went
 * to real inboxes, and its links and codes must not be readable by anyone who can reach the API;
 * the development SMS provider (SMS_PROVIDER=dev) still writes here. undefined: no mailbox (404).
 */
export function mailboxKinds(config: Config): MailKinds | undefined {
  if (config.production) return undefined;
  if (!config.SMTP_URL) return 'all';
  return config.mfa.smsProvider === 'dev' ? ['sms'] : undefined;
}

/** The mailbox's pages are HTML built here: no caching, and a CSP that allows no script. */
function devHeaders(c: Context<AppEnv>): void {
  c.header('Cache-Control', 'no-store');
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  );
}

/**
 * Development mailbox: the messages the service "sent" to it (the outbox), readable in the browser at
 * /auth/v1/_dev/mailbox. Public (no key: it is opened in a browser), left out of the OpenAPI document
 * (a development tool, not part of the API), and absent in production and whenever nothing is
 * delivered to it (then app.ts answers every GET /_dev/* with 404).
 */
export function devMailboxEndpoints(deps: Deps): Endpoint[] {
  const kinds = mailboxKinds(deps.config);
  if (!kinds) return [];
  return [
    defineEndpoint({
      method: 'get',
      path: '/_dev/mailbox.json',
      access: 'public',
      hidden: true,
      summary: 'Development mailbox as JSON (?to=<address>)',
      query: z.object({ to: z.string().optional() }),
      handler: async (c) => {
        devHeaders(c);
        const to = c.req.query('to')?.toLowerCase();
        const rows = await listMail(deps.db, { limit: 50, to, kinds });
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
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/_dev/mailbox/{id}',
      access: 'public',
      hidden: true,
      summary: 'One message of the development mailbox (HTML)',
      params: z.object({ id: z.string() }),
      handler: async (c, { param }) => {
        devHeaders(c);
        const id = param('id');
        const m = /^[0-9a-f-]{36}$/i.test(id) ? await getMail(deps.db, id, kinds) : undefined;
        if (!m) throw new AuthError('not_found');
        return c.html(
          `<!doctype html><meta charset="utf-8"><title>${esc(m.subject)}</title><p><a href="../mailbox">← mailbox</a></p>` +
            `<p><b>To:</b> ${esc(m.toAddress)}<br><b>Subject:</b> ${esc(m.subject)}</p><hr>${m.html}`,
        );
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/_dev/mailbox',
      access: 'public',
      hidden: true,
      summary: 'The development mailbox (HTML)',
      handler: async (c) => {
        devHeaders(c);
        const rows = await listMail(deps.db, { limit: 100, kinds });
        const items = rows
          .map(
            (m) =>
              `<tr><td>${esc(m.createdAt.toISOString())}</td><td>${esc(m.toAddress)}</td><td><a href="mailbox/${m.id}">${esc(m.subject)}</a></td><td>${esc(m.status)}</td></tr>`,
          )
          .join('');
        return c.html(
          `<!doctype html><meta charset="utf-8"><title>Development mailbox</title><style>body{font-family:system-ui;margin:2rem}td,th{padding:.3rem .6rem;text-align:start}</style>` +
            `<h1>Development mailbox</h1><p>${kinds === 'all' ? 'Mail is not delivered while SMTP_URL is unset; it is kept here.' : 'Development SMS only: mail goes out through SMTP_URL and is not shown here.'}</p>` +
            `<table><tr><th>Time</th><th>To</th><th>Subject</th><th>Status</th></tr>${items || '<tr><td colspan=4>No mail yet.</td></tr>'}</table>`,
        );
      },
    }),
  ];
}
