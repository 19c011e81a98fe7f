import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../config.ts';
import type { AppEnv } from './context.ts';

// JSON answers never need to load anything or be framed: the tightest policy there is. The
// development mailbox (HTML with the messages' inline styles) gets styles and images, still no script.
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const MAILBOX_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The Strict-Transport-Security value (HSTS_MAX_AGE, HSTS_INCLUDE_SUBDOMAINS), or undefined when
 * none is sent: SITE_URL is not https, or HSTS_MAX_AGE is 0. The API and the site send the same.
 */
export function hstsHeader(
  config: Pick<Config, 'SITE_URL' | 'HSTS_MAX_AGE' | 'HSTS_INCLUDE_SUBDOMAINS'>,
): string | undefined {
  if (!config.SITE_URL.startsWith('https://') || config.HSTS_MAX_AGE === 0) return undefined;
  return `max-age=${config.HSTS_MAX_AGE}${config.HSTS_INCLUDE_SUBDOMAINS ? '; includeSubDomains' : ''}`;
}

/**
 * Security headers on every auth API response (the site sets its own in site-app.ts): no MIME
 * sniffing, no referrer (URLs may carry link tokens), no framing, a strict CSP, and HSTS when the
 * public origin is https (never over plain http, where browsers ignore it and local setups would
 * be pinned by mistake).
 */
export function securityHeaders(options: { hsts: () => string | undefined }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set('X-Content-Type-Options', 'nosniff');
    h.set('Referrer-Policy', 'no-referrer');
    h.set('X-Frame-Options', 'DENY');
    h.set('Cross-Origin-Resource-Policy', 'cross-origin');
    if (!h.has('Content-Security-Policy'))
      h.set('Content-Security-Policy', c.req.path.includes('/_dev/') ? MAILBOX_CSP : API_CSP);
    const hsts = options.hsts();
    if (hsts) h.set('Strict-Transport-Security', hsts);
  };
}
