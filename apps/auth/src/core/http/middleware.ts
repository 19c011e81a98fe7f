import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../config.ts';
import { safeEqual } from '../../crypto/tokens.ts';
import { findSessionWithUserAndRelations } from '../../db/sessions.repo.ts';
import type { FactorRow, IdentityRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import type { Deps } from '../deps.ts';
import { type AppEnv, clientIp } from './context.ts';
import { jsonTextProblem, MAX_JSON_DEPTH } from './json-depth.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Strict: invalid UTF-8 is refused, not replaced (a whole-input decode keeps no state between calls). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Request id (kept from X-Request-Id when sane), per-request logger, one log line per request. */
export function requestContext(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    const log = deps.logger.child({ reqId: requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    c.set('meta', {
      ip: clientIp(c, deps.config.TRUST_PROXY),
      userAgent: c.req.header('user-agent'),
      requestId,
    });
    const started = performance.now();
    await next();
    c.header('X-Request-Id', requestId);
    // The path only: query strings carry link tokens (/verify?token=…).
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ip: c.get('meta').ip,
      },
      'request',
    );
  };
}

/** `application/json`, whatever its parameters (supabase-js sends `application/json;charset=UTF-8`). */
function isJsonMediaType(header: string): boolean {
  return header.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * Reads and parses JSON bodies up front so every route sees the same rules: over 1 MB → 413, bad
 * JSON → 400 bad_json, empty → {} (the client sends POST /logout with a JSON content type and no body).
 *
 * Only `application/json` is read as JSON. A body sent as `text/plain` (or form-encoded, or with no
 * type) is what a cross-site page can send without a CORS preflight, so parsing it anyway would let
 * any page drive the API from a visitor's browser once `apikey` is optional. GoTrue reads every body
 * as JSON (form bodies included, which then fail to parse), so no client of ours sends anything else.
 * A declared non-JSON type is refused even with an empty body; a bodiless request with no type
 * (curl -X POST …/logout) is still fine.
 */
export function jsonBody(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') {
      c.set('body', {});
      return next();
    }
    const contentType = c.req.header('content-type');
    if (contentType !== undefined && !isJsonMediaType(contentType))
      throw new AuthError('bad_json', 'Content-Type must be application/json');
    const declared = c.req.header('content-length');
    const length = Number(declared ?? '0');
    if (length > MAX_BODY_BYTES) throw new AuthError('request_entity_too_large');
    let bytes: Uint8Array | undefined;
    if (declared !== undefined && Number.isSafeInteger(length)) {
      // Declared and within the cap (Node's parser never delivers more than Content-Length): read it
      // whole. @hono/node-server then takes the body straight off the socket, without building a
      // WHATWG Request and stream (~50 µs of event-loop time per request on the refresh hot path).
      if (length > 0) bytes = new Uint8Array(await c.req.raw.arrayBuffer());
    } else if (c.req.raw.body) {
      // Chunked (no length): counted as it streams, refused past the cap.
      const reader = c.req.raw.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > MAX_BODY_BYTES) {
          await reader.cancel().catch(() => {});
          throw new AuthError('request_entity_too_large');
        }
        chunks.push(value);
      }
      bytes = Buffer.concat(chunks);
    }
    let text = '';
    if (bytes) {
      try {
        text = utf8.decode(bytes);
      } catch {
        throw new AuthError('bad_json', 'Could not parse request body as JSON: invalid UTF-8');
      }
    }
    if (text.trim() === '') c.set('body', {});
    else if (contentType === undefined)
      throw new AuthError('bad_json', 'Content-Type must be application/json');
    else {
      // Refused like invalid UTF-8: text that cannot be parsed safely or stored (see json-depth.ts).
      const problem = jsonTextProblem(text, MAX_JSON_DEPTH);
      if (problem === 'too_deep')
        throw new AuthError(
          'bad_json',
          `Could not parse request body as JSON: nested deeper than ${MAX_JSON_DEPTH} levels`,
        );
      if (problem === 'nul')
        throw new AuthError(
          'bad_json',
          'Could not parse request body as JSON: strings may not contain \\u0000',
        );
      try {
        c.set('body', JSON.parse(text));
      } catch (err) {
        throw new AuthError(
          'bad_json',
          `Could not parse request body as JSON: ${(err as Error).message.slice(0, 120)}`,
        );
      }
    }
    return next();
  };
}

/**
 * The `apikey` header (or `Authorization: Bearer <key>`), as the Supabase gateway requires: the
 * public ANON_KEY or the SERVICE_ROLE_KEY. The email link (GET /verify) and public metadata are exempt.
 */
export function requireApiKey(config: Config): MiddlewareHandler<AppEnv> {
  const exempt = [
    /^\/auth\/v1\/verify$/,
    /^\/auth\/v1\/health$/,
    /^\/auth\/v1\/\.well-known\//,
    /^\/auth\/v1\/openapi\.json$/,
    /^\/auth\/v1\/_dev\//,
  ];
  return async (c, next) => {
    if (
      c.req.method === 'OPTIONS' ||
      ((c.req.method === 'GET' || c.req.method === 'HEAD') && exempt.some((re) => re.test(c.req.path)))
    )
      return next();
    const key = c.req.header('apikey') ?? c.req.query('apikey');
    if (!key) throw new AuthError('no_api_key');
    // Constant-time: SERVICE_ROLE_KEY is a secret (both checks always run).
    const anon = safeEqual(key, config.ANON_KEY);
    const service = config.SERVICE_ROLE_KEY !== undefined && safeEqual(key, config.SERVICE_ROLE_KEY);
    if (!anon && !service) throw new AuthError('invalid_api_key');
    return next();
  };
}

/** Authenticates `Authorization: Bearer <access token>` and loads its user and session. */
export function requireUser(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = header.match(/^Bearer\s+(\S+)$/i);
    if (!match) throw new AuthError('no_authorization');
    const token = match[1] as string;
    let claims: Awaited<ReturnType<typeof deps.keys.verify>>;
    try {
      claims = await deps.keys.verify(token);
    } catch (err) {
      const detail = (err as Error).message?.slice(0, 100) ?? 'invalid';
      throw new AuthError('bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`);
    }
    if (typeof claims.session_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(claims.session_id))
      throw new AuthError('session_not_found');
    // One prepared statement loads the session, user, identities and factors (GET /user needs all).
    const found = await findSessionWithUserAndRelations(deps.db, claims.session_id);
    if (!found) throw new AuthError('session_not_found');
    if (found.user.id !== claims.sub) throw new AuthError('user_not_found');
    const auth = { user: found.user, session: found.session };
    loadedRelations.set(auth, { identities: found.identities, factors: found.factors });
    c.set('auth', auth);
    return next();
  };
}

const loadedRelations = new WeakMap<object, { identities: IdentityRow[]; factors: FactorRow[] }>();

/** The identities and factors read together with `c.get('auth')` (as of the start of the request). */
export function authRelations(auth: object): { identities: IdentityRow[]; factors: FactorRow[] } | undefined {
  return loadedRelations.get(auth);
}
