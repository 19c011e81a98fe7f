import type { Context } from 'hono';
import { Hono } from 'hono';
import { loadSiteFiles, type SiteFile } from './site-files.ts';

export type SiteRuntimeConfig = {
  /** Origin of the auth API the site's client talks to; '' means the page's own origin. */
  supabaseUrl: string;
  /** The public anonymous key the site sends as `apikey`. */
  anonKey: string;
};

export type SiteOptions = {
  /** The prerendered build (apps/web/build/client). */
  dir: string;
  runtimeConfig: SiteRuntimeConfig;
  /** The Strict-Transport-Security value to send (core/http/security-headers.ts hstsHeader), if any. */
  hsts?: string | undefined;
  logger?: { warn: (obj: object, msg: string) => void };
  /** CAPTCHA's provider when SECURITY_CAPTCHA_ENABLED: the pages' CSP then lets its widget in. */
  captchaProvider?: CaptchaProvider | undefined;
};

export type CaptchaProvider = 'turnstile' | 'hcaptcha';

/**
 * The origins each provider's widget needs, from the providers' CSP guides: Turnstile's script and
 * challenge frame come from one origin; hCaptcha's also fetch and style from its subdomains.
 */
const captchaSources: Record<
  CaptchaProvider,
  { script: string; frame: string; style?: string; connect?: string }
> = {
  turnstile: { script: 'https://challenges.cloudflare.com', frame: 'https://challenges.cloudflare.com' },
  hcaptcha: {
    script: 'https://hcaptcha.com https://*.hcaptcha.com',
    frame: 'https://hcaptcha.com https://*.hcaptcha.com',
    style: 'https://hcaptcha.com https://*.hcaptcha.com',
    connect: 'https://hcaptcha.com https://*.hcaptcha.com',
  },
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
const SHORT = 'public, max-age=3600';

/** Locales with their own prefix; each has its own prerendered 404 page. */
const localePrefixes = ['/ar'];

function contentSecurityPolicy(file: SiteFile, connectSources: string, captcha?: CaptchaProvider): string {
  // Without CAPTCHA the policy names no third party at all (and has no frame-src: default-src
  // 'self' covers it), so the default pages' headers stay as short as before.
  const third = captcha ? captchaSources[captcha] : undefined;
  const plus = (base: string, extra: string | undefined) => (extra ? `${base} ${extra}` : base);
  return [
    "default-src 'self'",
    // Inline scripts are allowed by hash only: the hashes are taken from this very page at start-up.
    plus(`script-src 'self' ${file.inlineScriptHashes.join(' ')}`.trim(), third?.script),
    // Inline styles carry the critical CSS; style injection is not a script-execution vector here.
    plus("style-src 'self' 'unsafe-inline'", third?.style),
    "img-src 'self' data:",
    "font-src 'self'",
    plus(`connect-src ${connectSources}`, third?.connect),
    ...(third ? [`frame-src ${third.frame}`] : []),
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function pickEncoding(accept: string | undefined, file: SiteFile): 'br' | 'gzip' | undefined {
  if (!accept) return undefined;
  const offered = accept
    .toLowerCase()
    .split(',')
    .map((part) => part.trim())
    .filter((part) => !/;\s*q=0(\.0*)?$/.test(part))
    .map((part) => part.split(';')[0]);
  if (file.br && offered.includes('br')) return 'br';
  if (file.gzip && offered.includes('gzip')) return 'gzip';
  return undefined;
}

function resolvePath(files: Map<string, SiteFile>, rawPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  // Pages live at their clean URLs only: `/index.html` would serve the home page's HTML at a URL its
  // router does not know, and after hydration it rendered the 404 block over the page.
  if (path.endsWith('.html')) return undefined;
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : '';
  const candidates = [path, `${trimmed}/index.html`, `${trimmed}.html`];
  return candidates.find((candidate) => files.has(candidate) && !candidate.endsWith('/404.html'));
}

function notFoundPage(files: Map<string, SiteFile>, path: string): SiteFile | undefined {
  const prefix = localePrefixes.find((p) => path === p || path.startsWith(`${p}/`));
  return (prefix && files.get(`${prefix}/404.html`)) || files.get('/404.html');
}

/**
 * Serves the prerendered site: precompressed variants chosen by Accept-Encoding, long-lived caching for
 * hashed assets, revalidation for HTML, the locale's 404 page with status 404 for unknown paths, and
 * `/runtime-config.json` so the anon key and auth URL change without a rebuild.
 */
export function createSiteApp(options: SiteOptions): Hono {
  const files = loadSiteFiles(options.dir);
  if (files.size === 0) {
    options.logger?.warn(
      { dir: options.dir },
      'site build not found: run `npm run build` (npm start does it)',
    );
  }
  const runtimeConfigBody = JSON.stringify(options.runtimeConfig);
  // The pages call the auth API on their own origin unless the site is pointed at another one.
  const connectSources = options.runtimeConfig.supabaseUrl
    ? `'self' ${new URL(options.runtimeConfig.supabaseUrl).origin}`
    : "'self'";
  const policies = new WeakMap<SiteFile, string>();
  const policyFor = (file: SiteFile) => {
    const cached = policies.get(file);
    if (cached) return cached;
    const policy = contentSecurityPolicy(file, connectSources, options.captchaProvider);
    policies.set(file, policy);
    return policy;
  };
  const app = new Hono();

  app.use('*', async (c, next) => {
    await next();
    // Pages carry `frame-ancestors 'none'` in their CSP, which browsers apply in place of
    // X-Frame-Options (CSP3: it wins when both are present), so only responses without a CSP get the
    // older header: the home pages' headers count toward their first round trip (issue #18).
    if (!c.res.headers.has('Content-Security-Policy')) c.header('X-Frame-Options', 'DENY');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    if (options.hsts) c.header('Strict-Transport-Security', options.hsts);
  });

  app.get('/runtime-config.json', (c) => {
    c.header('Cache-Control', REVALIDATE);
    return c.body(runtimeConfigBody, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  const send = (c: Context, file: SiteFile, status: 200 | 404, cacheControl: string) => {
    c.header('Content-Type', file.contentType);
    c.header('Cache-Control', cacheControl);
    c.header('Vary', 'Accept-Encoding');
    if (file.contentType.startsWith('text/html')) {
      c.header('Content-Security-Policy', policyFor(file));
    }
    if (status === 200) {
      c.header('ETag', file.etag);
      if (c.req.header('If-None-Match') === file.etag) return c.body(null, 304);
    }
    const encoding = pickEncoding(c.req.header('Accept-Encoding'), file);
    const body = encoding === 'br' ? file.br! : encoding === 'gzip' ? file.gzip! : file.body;
    if (encoding) c.header('Content-Encoding', encoding);
    c.header('Content-Length', String(body.byteLength));
    if (c.req.method === 'HEAD') return c.body(null, status);
    return c.body(new Uint8Array(body), status);
  };

  app.on(['GET', 'HEAD'], '*', (c) => {
    const key = resolvePath(files, c.req.path);
    if (key) {
      const file = files.get(key)!;
      return send(c, file, 200, file.immutable ? IMMUTABLE : key.endsWith('.html') ? REVALIDATE : SHORT);
    }
    const notFound = notFoundPage(files, c.req.path);
    if (notFound) return send(c, notFound, 404, REVALIDATE);
    return c.text('Not found. The site has not been built: run `npm run build`.', 404);
  });

  app.all('*', (c) => {
    c.header('Allow', 'GET, HEAD');
    return c.text('Method not allowed', 405);
  });

  return app;
}
