import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../deps.ts';
import { requestReauthentication } from '../domain/reauthenticate.ts';
import type { AppEnv } from '../http/context.ts';
import { requireUser } from '../http/middleware.ts';
import { documentRoute } from '../http/openapi.ts';

export function reauthenticateRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  r.use('/reauthenticate', requireUser(deps));
  documentRoute(r, {
    method: 'get',
    path: '/reauthenticate',
    summary: 'Mails the signed-in user a 6-digit nonce for a password change (PUT /user {password, nonce})',
    auth: true,
    responses: { 200: '{}', 429: 'over_email_send_rate_limit' },
  });
  r.get('/reauthenticate', async (c) => {
    await requestReauthentication(deps, c.get('auth').user, c.get('meta'));
    return c.json({});
  });
  return r;
}
