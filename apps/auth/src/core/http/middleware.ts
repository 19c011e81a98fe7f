import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { AuthError } from '../../errors.ts';
import type { Deps } from '../deps.ts';
import { observeRequest } from '../metrics.ts';
import { type AppEnv, clientIp, forwardedFromUntrustedPeer, peerAddress } from './context.ts';
import { jsonTextProblem, MAX_JSON_DEPTH } from './json-depth.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Strict: invalid UTF-8 is refused, not replaced (a whole-input decode keeps no state between calls). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Request id (kept from X-Request-Id when sane), per-request logger, one log line per request. */
export function requestContext(deps: Deps): MiddlewareHandler<AppEnv> {
  // Once per process, not per request: the point is to tell the operator, not to fill the log.
  let warnedUntrustedForward = !deps.config.production;
  return async (c, next) => {
    if (!warnedUntrustedForward && forwardedFromUntrustedPeer(c, deps.config.TRUST_PROXY)) {
      warnedUntrustedForward = true;
      deps.logger.warn(
        { peer: peerAddress(c) },
        'X-Forwarded-For arrived from a peer TRUST_PROXY does not list: it is ignored, so rate limits key on the proxy (every visitor behind it shares one bucket). Add the proxy to TRUST_PROXY.',
      );
    }
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
    const ms = performance.now() - started;
    // The pattern of the last handler that ran (the endpoint, or the guard that refused): after
    // next() Hono's route index points at it. Unmatched paths have none.
    observeRequest(c.req.method, routePath(c) || 'unmatched', c.res.status, ms / 1000);
    // The path only: query strings carry link tokens (/verify?token=…).
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(ms * 10) / 10,
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
