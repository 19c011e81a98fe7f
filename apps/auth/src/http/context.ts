import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { RequestMeta } from '../deps.ts';
import { AuthError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { SessionRow } from '../repositories/sessions.ts';
import type { UserRow } from '../repositories/users.ts';

export type AppEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    meta: RequestMeta;
    /** The parsed JSON body ({} when empty); set by the body middleware. */
    body: unknown;
    auth: { user: UserRow; session: SessionRow };
  };
};

function stripPort(ip: string): string {
  const v4 = ip.match(/^(\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?$/);
  if (v4) return v4[1] as string;
  return ip.replace(/^\[|\](:\d+)?$/g, '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/**
 * The client IP for rate limits. X-Forwarded-For is believed only when the direct peer is a
 * trusted proxy (TRUST_PROXY); then the right-most address not itself a trusted proxy is used.
 */
export function clientIp(c: Context, trustProxy: string[]): string {
  let remote = 'unknown';
  try {
    remote = stripPort(getConnInfo(c).remote.address ?? 'unknown');
  } catch {
    // app.request() in unit tests has no socket.
  }
  if (trustProxy.length === 0) return remote;
  const trusted = (ip: string) => trustProxy.includes(ip) || trustProxy.includes('*');
  if (!trusted(remote)) return remote;
  const chain = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => stripPort(s.trim()))
    .filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) if (!trusted(chain[i] as string)) return chain[i] as string;
  return chain[0] ?? remote;
}

/** Validates the parsed body with a zod schema, answering GoTrue's 400 validation_failed. */
export function parseBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S): z.infer<S> {
  const body = c.get('body');
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new AuthError('validation_failed', 'Request body must be a JSON object');
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new AuthError('validation_failed', `${where}${issue?.message ?? 'invalid input'}`);
  }
  return result.data;
}

/** A single query-string value (first one wins), bounded in length. */
export function queryParam(c: Context, name: string): string | undefined {
  const v = c.req.query(name);
  if (v === undefined) return undefined;
  if (v.length > 2048) throw new AuthError('validation_failed', `${name} is too long`);
  return v;
}
