import { BlockList, isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { z } from 'zod';
import type { SessionRow } from '../../db/sessions.repo.ts';
import type { UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { RequestMeta } from '../deps.ts';
import type { AdminCaller, ApiKeyKind } from './guards.ts';

export type AppEnv = {
  Variables: {
    requestId: string;
    log: Logger;
    meta: RequestMeta;
    /** The parsed JSON body ({} when empty); set by the body middleware. */
    body: unknown;
    auth: { user: UserRow; session: SessionRow };
    /** The key the caller presented; set by the apikey guard (unset on public endpoints). */
    apiKey: ApiKeyKind;
    /** The admin credential; set by the admin guard (the admin API only). */
    admin: AdminCaller;
  };
};

function stripPort(ip: string): string {
  const v4 = ip.match(/^(\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?$/);
  if (v4) return v4[1] as string;
  return ip.replace(/^\[|\](:\d+)?$/g, '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

const proxyLists = new WeakMap<string[], (ip: string) => boolean>();

/**
 * TRUST_PROXY entries: addresses (10.0.0.5, ::1), CIDR ranges (10.0.0.0/8, fd00::/8) or `*`.
 * Compiled once per configuration into a matcher; IPv4-mapped IPv6 peers match their IPv4 form.
 */
export function proxyMatcher(trustProxy: string[]): (ip: string) => boolean {
  const cached = proxyLists.get(trustProxy);
  if (cached) return cached;
  const any = trustProxy.includes('*');
  const list = new BlockList();
  for (const entry of trustProxy) {
    const [addr = '', bits] = entry.split('/');
    const family = isIP(addr) === 6 ? 'ipv6' : isIP(addr) === 4 ? 'ipv4' : undefined;
    if (!family) continue;
    if (bits === undefined) list.addAddress(addr, family);
    else list.addSubnet(addr, Number(bits), family);
  }
  const match = (ip: string) => {
    if (any) return true;
    const family = isIP(ip);
    if (family === 0) return false;
    return list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  };
  proxyLists.set(trustProxy, match);
  return match;
}

/** The address of the direct peer (the proxy, when there is one), without a port. */
export function peerAddress(c: Context): string {
  try {
    return stripPort(getConnInfo(c).remote.address ?? 'unknown');
  } catch {
    return 'unknown'; // app.request() in unit tests has no socket.
  }
}

/**
 * True when the request carries X-Forwarded-For from a peer TRUST_PROXY does not list: behind a
 * proxy missing from TRUST_PROXY, every visitor shares the proxy's rate-limit bucket.
 */
export function forwardedFromUntrustedPeer(c: Context, trustProxy: string[]): boolean {
  if (c.req.header('x-forwarded-for') === undefined) return false;
  return trustProxy.length === 0 || !proxyMatcher(trustProxy)(peerAddress(c));
}

/**
 * The client IP for rate limits. X-Forwarded-For is believed only when the direct peer is a
 * trusted proxy (TRUST_PROXY); then the right-most address not itself a trusted proxy is used
 * (the left-most entries are whatever the client chose to send, so they are never believed).
 */
export function clientIp(c: Context, trustProxy: string[]): string {
  const remote = peerAddress(c);
  if (trustProxy.length === 0) return remote;
  const trusted = proxyMatcher(trustProxy);
  if (!trusted(remote)) return remote;
  const chain = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => stripPort(s.trim()))
    .filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i] as string;
    // Garbage in the header is not an address: stop there and key on the last hop we can vouch for.
    if (isIP(hop) === 0) return i === chain.length - 1 ? remote : (chain[i + 1] as string);
    if (!trusted(hop)) return hop;
  }
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
