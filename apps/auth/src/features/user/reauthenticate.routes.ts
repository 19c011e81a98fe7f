import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { requireUser } from '../../core/http/middleware.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { requestReauthentication } from './reauthenticate.ts';

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
