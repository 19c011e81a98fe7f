import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { AuthError } from '../errors.ts';
import { type AppEnv, queryParam } from '../http/context.ts';
import { requireUser } from '../http/middleware.ts';
import { documentRoute } from '../http/openapi.ts';
import { audit } from '../repositories/audit.ts';
import { deleteSession, deleteUserSessions } from '../repositories/sessions.ts';

export function logoutRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  r.use('/logout', requireUser(deps));
  documentRoute(r, {
    method: 'post',
    path: '/logout',
    summary: 'End sessions: global (all, default), local (this one) or others',
    auth: true,
    query: z.object({ scope: z.enum(['global', 'local', 'others']).optional() }),
    responses: { 204: 'Signed out' },
  });
  r.post('/logout', async (c) => {
    const scope = queryParam(c, 'scope') || 'global';
    const { user, session } = c.get('auth');
    if (scope === 'local') await deleteSession(deps.db, session.id);
    else if (scope === 'others') await deleteUserSessions(deps.db, user.id, session.id);
    else if (scope === 'global') await deleteUserSessions(deps.db, user.id);
    else throw new AuthError('validation_failed', `Unsupported logout scope "${scope.slice(0, 20)}"`);
    await audit(deps.db, 'logout', user.id, c.get('meta').ip, { scope });
    return c.body(null, 204);
  });
  return r;
}
