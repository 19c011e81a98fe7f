import { OpenAPIHono } from '@hono/zod-openapi';
import { Hono, type MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import { cors } from 'hono/cors';
import { routePath } from 'hono/route';
import { TrieRouter } from 'hono/router/trie-router';
import type { Deps } from './core/deps.ts';
import { CAPTCHA_PATHS, requireCaptcha } from './core/http/captcha.ts';
import type { AppEnv } from './core/http/context.ts';
import { type Endpoint, honoPath, mountEndpoint } from './core/http/define-endpoint.ts';
import { type Access, guardChains } from './core/http/guards.ts';
import { requestContext } from './core/http/middleware.ts';
import { hstsHeader, securityHeaders } from './core/http/security-headers.ts';
import { countAuthError } from './core/metrics.ts';
import { isDatabaseUnavailable, sqlState } from './db/client.ts';
import { errorSummary } from './db/error-summary.ts';
import { API_VERSION_HEADER, AuthError, toErrorResponse } from './errors.ts';
import { accountEndpoints } from './features/account/account.routes.ts';
import { adminEndpoints } from './features/admin/admin.routes.ts';
import { recoverEndpoints } from './features/email-links/recover.routes.ts';
import { resendEndpoints } from './features/email-links/resend.routes.ts';
import { verifyEndpoints } from './features/email-links/verify.routes.ts';
import { jwksEndpoints } from './features/keys/jwks.routes.ts';
import { factorEndpoints } from './features/mfa/factors.routes.ts';
import { recoveryCodeEndpoints } from './features/mfa/recovery-codes.routes.ts';
import { devMailboxEndpoints } from './features/ops/dev-mailbox.routes.ts';
import { healthEndpoints, SERVICE_VERSION } from './features/ops/health.routes.ts';
import { metricsHandler } from './features/ops/metrics.routes.ts';
import { settingsEndpoints } from './features/ops/settings.routes.ts';
import { otpEndpoints } from './features/otp/otp.routes.ts';
import { passkeyEndpoints } from './features/passkeys/passkeys.routes.ts';
import { logoutEndpoints } from './features/session/logout.routes.ts';
import { tokenEndpoints } from './features/session/token.routes.ts';
import { signupEndpoints } from './features/signup/signup.routes.ts';
import { socialEndpoints } from './features/social/social.routes.ts';
import { switchedOffEndpoints } from './features/switched-off/switched-off.routes.ts';
import { reauthenticateEndpoints } from './features/user/reauthenticate.routes.ts';
import { userEndpoints } from './features/user/user.routes.ts';
import { whatsappStatusEndpoints } from './features/whatsapp-status/whatsapp-status.routes.ts';
import { createSiteApp, type SiteOptions } from './site/site-app.ts';

export type HttpAppOptions = { site?: Omit<SiteOptions, 'logger'> | undefined };

/**
 * Maps any thrown value to a response: AuthError as is, database outages to 503, the rest to 500.
 * Errors are logged through errorSummary, never as `err.message`: Drizzle's message carries the SQL
 * and every bound parameter (password hashes, TOTP secrets, mail text).
 */
function handleError(deps: Deps) {
  return (err: Error, c: import('hono').Context<AppEnv>) => {
    const requestId = c.get('requestId');
    const log = c.get('log') ?? deps.logger;
    let authError: AuthError;
    if (err instanceof AuthError) authError = err;
    else if (sqlState(err)?.startsWith('22')) {
      // A data exception (e.g. a NUL byte PostgreSQL cannot store) is bad input that slipped past
      // validation: still the caller's fault, never a 500.
      log.warn({ err: errorSummary(err) }, 'data exception from input');
      authError = new AuthError('validation_failed', 'Invalid input');
    } else if (isDatabaseUnavailable(err)) {
      log.error({ err: errorSummary(err) }, 'database unavailable');
      authError = new AuthError('service_unavailable', undefined, { headers: { 'Retry-After': '5' } });
    } else {
      log.error({ err: errorSummary(err, { stack: true }) }, 'unexpected error');
      authError = new AuthError('unexpected_failure');
    }
    countAuthError(authError.code);
    const res = toErrorResponse(c, authError, requestId);
    if (requestId) res.headers.set('X-Request-Id', requestId);
    return res;
  };
}

const strictness: Record<Access, number> = { public: 0, form: 0, apikey: 1, user: 2, service: 2 };

/** Every endpoint of the API, each declared once in its feature (define-endpoint.ts). */
export function apiEndpoints(deps: Deps): Endpoint[] {
  return [
    ...healthEndpoints(deps),
    ...settingsEndpoints(deps),
    ...jwksEndpoints(deps),
    ...signupEndpoints(deps),
    ...tokenEndpoints(deps),
    ...verifyEndpoints(deps),
    ...userEndpoints(deps),
    ...reauthenticateEndpoints(deps),
    ...logoutEndpoints(deps),
    ...recoverEndpoints(deps),
    ...resendEndpoints(deps),
    ...otpEndpoints(deps),
    ...socialEndpoints(deps),
    ...switchedOffEndpoints(deps),
    ...recoveryCodeEndpoints(deps),
    ...factorEndpoints(deps),
    ...passkeyEndpoints(deps),
    ...accountEndpoints(deps),
    ...adminEndpoints(deps),
    ...devMailboxEndpoints(deps),
    ...whatsappStatusEndpoints(deps),
  ];
}

/** The auth API (GoTrue wire format), mounted at API_PATH (/auth/v1 by default). */
export function createAuthApi(deps: Deps): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>();
  // First, so it also decorates CORS preflights and error answers.
  api.use('*', securityHeaders({ hsts: () => hstsHeader(deps.config) }));
  api.use(
    '*',
    cors({
      // By default any origin may call the API: credentials are bearer tokens, never cookies.
      // CORS_ALLOWED_ORIGINS narrows it to a list (others get no Access-Control-Allow-Origin; the
      // answer then varies by Origin). CORS answers every preflight (OPTIONS) itself, before any guard.
      origin: deps.config.CORS_ALLOWED_ORIGINS.includes('*') ? '*' : deps.config.CORS_ALLOWED_ORIGINS,
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      // Only headers some route sends: the admin API adds X-Total-Count and Link when it lists users.
      // X-Total-Count and Link: the admin user list's paging (GoTrue exposes both).
      exposeHeaders: [API_VERSION_HEADER, 'X-Total-Count', 'Link', 'Retry-After', 'X-Request-Id'],
      maxAge: 600,
    }),
  );
  api.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });
  // Each endpoint runs behind its access level's guards (public, apikey, user, service).
  const guards = guardChains(deps);
  const endpoints = apiEndpoints(deps);
  // CAPTCHA (SECURITY_CAPTCHA_*) after the body is read, on GoTrue's public POST endpoints.
  const captcha = requireCaptcha(deps.config);
  for (const endpoint of endpoints) {
    const chain = guards[endpoint.access];
    const withCaptcha =
      deps.config.captcha && endpoint.method === 'post' && CAPTCHA_PATHS.has(endpoint.path)
        ? [...chain, captcha]
        : chain;
    mountEndpoint(api, endpoint, withCaptcha);
  }
  api.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  const publicPaths = [
    ...new Set(
      endpoints.filter((e) => (e.access === 'public' || e.access === 'form') && !e.hidden).map((e) => e.path),
    ),
  ];
  // Public, like the endpoints it describes.
  api.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Namaa auth API (Supabase Auth / GoTrue compatible)',
      version: SERVICE_VERSION,
      description: `Every route is under ${deps.config.API_PATH || '/'} and needs the \`apikey\` header, except GET ${publicPaths.join(', ')} and /openapi.json.`,
    },
    servers: [{ url: deps.config.API_PATH || '/' }],
  });
  const notFound = () => {
    throw new AuthError('not_found', 'Not found');
  };
  // A declared path asked with another method: 404 behind the strictest guards its endpoints run,
  // and at least the key check (only GET is ever public), so e.g. DELETE /user still asks for the
  // bearer token first. Unknown paths: 404 after the key check, except under the public prefixes
  // (the key set and OpenID configuration, the development mailbox), which a browser or a JWT
  // library reads unkeyed.
  //
  // One catch-all route looks the access level up, rather than an `ALL` route per declared path:
  // such a static route after a parameter sibling (`ALL /passkeys/registration/options` after
  // `DELETE /passkeys/:passkeyId`) is what Hono's RegExpRouter cannot order, and one of them made
  // the whole app fall back to the TrieRouter, whose per-request search cost ~25 µs of every
  // refresh (bench/auth-throughput.ts; test/core/http/router.test.ts holds the router choice).
  const fallbackAccess = new TrieRouter<Access>();
  const accessByPath = new Map<string, Access>();
  for (const e of endpoints) {
    const current = accessByPath.get(e.path) ?? 'apikey';
    accessByPath.set(e.path, strictness[e.access] > strictness[current] ? e.access : current);
  }
  for (const [path, access] of accessByPath) fallbackAccess.add('ALL', honoPath(path), access);
  const notFoundChains = new Map<Access, MiddlewareHandler<AppEnv>>(
    (Object.keys(guards) as Access[]).map((access) => [access, every(...guards[access], notFound)]),
  );
  api.on(['GET'], ['/.well-known/*', '/_dev/*'], ...guards.public, notFound);
  api.on(['ALL'], ['*'], (c, next) => {
    // The request path inside the API: the mount point is this route's own pattern without `/*`.
    const path = c.req.path.slice(routePath(c).length - 2) || '/';
    let access: Access = 'apikey';
    for (const [found] of fallbackAccess.match('ALL', path)[0])
      if (strictness[found] > strictness[access]) access = found;
    return (notFoundChains.get(access) as MiddlewareHandler<AppEnv>)(c, next);
  });
  api.onError(handleError(deps));
  return api;
}

/** The whole HTTP surface: the auth API at API_PATH and, when given, the site as the fallback (not with API_PATH=/). */
export function createHttpApp(deps: Deps, options: HttpAppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestContext(deps));
  // Beside the API, not under it: Prometheus scrapes /metrics by convention, and the apikey guards
  // do not apply (its own token does, see features/ops/metrics.routes.ts). Off: the site's 404.
  // Registered first, so an API mounted at the root (API_PATH=/) does not swallow it.
  if (deps.config.METRICS_ENABLED) app.get('/metrics', metricsHandler(deps));
  app.route(deps.config.API_PATH || '/', createAuthApi(deps));
  if (options.site && deps.config.API_PATH !== '') {
    const log = deps.logger.child({ part: 'site' });
    app.route('/', createSiteApp({ ...options.site, logger: { warn: (obj, msg) => log.warn(obj, msg) } }));
  }
  app.notFound((c) => toErrorResponse(c, new AuthError('not_found'), c.get('requestId')));
  app.onError(handleError(deps));
  return app;
}
