import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, parseBody, queryParam } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { emailField, passwordField } from '../../core/http/schemas.ts';
import type { SessionResponse } from '../../core/issue-session.ts';
import { pkceGrant } from '../../core/pkce.ts';
import { AuthError } from '../../errors.ts';
import { passwordGrant } from './password-grant.ts';
import { refreshGrant } from './refresh.ts';

export const passwordGrantBody = z.object({
  email: emailField.optional(),
  phone: z.string().max(100).optional(),
  password: passwordField.optional(),
});
export const refreshGrantBody = z.object({ refresh_token: z.string().max(1000).optional() });
export const pkceGrantBody = z.object({
  auth_code: z.string().max(200).optional(),
  code_verifier: z.string().max(200).optional(),
});

export type GrantHandler = (deps: Deps, c: Context<AppEnv>) => Promise<SessionResponse>;

/**
 * grant_type → handler. Later issues add entries (e.g. `pkce`) without touching the route.
 */
export const grantHandlers: Record<string, GrantHandler> = {
  password: (deps, c) => passwordGrant(deps, parseBody(c, passwordGrantBody), c.get('meta')),
  refresh_token: (deps, c) => refreshGrant(deps, parseBody(c, refreshGrantBody).refresh_token, c.get('meta')),
  pkce: (deps, c) => pkceGrant(deps, parseBody(c, pkceGrantBody), c.get('meta')),
};

export function tokenRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, {
    method: 'post',
    path: '/token',
    summary: 'Issue a session: grant_type=password (email, password) or refresh_token (refresh_token)',
    query: z.object({ grant_type: z.enum(['password', 'refresh_token', 'pkce']) }),
    body: z.union([passwordGrantBody, refreshGrantBody, pkceGrantBody]),
    responses: {
      200: 'Session',
      400: 'invalid_credentials, email_not_confirmed, refresh_token_*',
      429: 'rate limited',
    },
  });
  r.post('/token', async (c) => {
    const grantType = queryParam(c, 'grant_type') ?? '';
    const handler = Object.hasOwn(grantHandlers, grantType) ? grantHandlers[grantType] : undefined;
    if (!handler) throw new AuthError('unsupported_grant_type', 'unsupported_grant_type');
    const session = await handler(deps, c);
    c.header('Cache-Control', 'no-store');
    return c.json(session);
  });
  return r;
}
