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

/** The language a message was written in, read from its <html lang>. */
const languageOf = (html: string) => /<html[^>]*\slang="([a-z-]+)"/i.exec(html)?.[1] ?? '';

/**
 * One message as its recipient sees it: the HTML in a sandboxed frame (srcdoc, so it needs no URL
 * of its own and inherits this page's CSP: inline styles only, no scripts, no remote loads, which
 * is also how a careful mail client shows it), and the plain-text part below it.
 * The sandbox has no allow-scripts and no allow-same-origin; popups may leave it, so the message's
 * links (target=_blank) open in a new tab as they would from a webmail.
 */
function messagePage(m: {
  toAddress: string;
  subject: string;
  html: string;
  text: string;
  status: string;
}): string {
  const lang = languageOf(m.html);
  return (
    `<!doctype html><meta charset="utf-8"><title>${esc(m.subject)}</title>` +
    '<style>body{font-family:system-ui;margin:1.5rem;max-width:60rem}iframe{width:100%;height:44rem;border:1px solid #ccc;border-radius:6px;background:#fff}pre{white-space:pre-wrap;font-family:system-ui,sans-serif;background:#f6f6f6;padding:1rem;border-radius:6px}</style>' +
    '<p><a href="../mailbox">← mailbox</a></p>' +
    `<p><b>To:</b> ${esc(m.toAddress)}<br><b>Subject:</b> <span dir="auto">${esc(m.subject)}</span><br><b>Language:</b> ${esc(lang || 'unknown')} · <b>Status:</b> ${esc(m.status)}</p>` +
    (m.html
      ? `<h2>HTML</h2><iframe title="The message as its recipient sees it" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${esc(m.html)}"></iframe>`
      : '') +
    `<h2>Text</h2><pre dir="auto">${esc(m.text)}</pre>`
  );
}

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
        return c.html(messagePage(m));
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
              `<tr><td>${esc(m.createdAt.toISOString())}</td><td>${esc(m.toAddress)}</td><td dir="auto"><a href="mailbox/${m.id}">${esc(m.subject)}</a></td><td>${esc(languageOf(m.html))}</td><td>${esc(m.status)}</td></tr>`,
          )
          .join('');
        return c.html(
          `<!doctype html><meta charset="utf-8"><title>Development mailbox</title><style>body{font-family:system-ui;margin:2rem}td,th{padding:.3rem .6rem;text-align:start}</style>` +
            `<h1>Development mailbox</h1><p>${kinds === 'all' ? 'Mail is not delivered while SMTP_URL is unset; it is kept here.' : 'Development SMS only: mail goes out through SMTP_URL and is not shown here.'}</p>` +
            `<table><tr><th>Time</th><th>To</th><th>Subject</th><th>Language</th><th>Status</th></tr>${items || '<tr><td colspan=5>No mail yet.</td></tr>'}</table>`,
        );
      },
    }),
  ];
}
