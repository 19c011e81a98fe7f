import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { signOut } from '../domain/sign-out.ts';
import { type AppEnv, queryParam } from '../http/context.ts';
import { requireUser } from '../http/middleware.ts';
import { documentRoute } from '../http/openapi.ts';

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
    const { user, session } = c.get('auth');
    await signOut(
      deps,
      { userId: user.id, sessionId: session.id },
      queryParam(c, 'scope') || 'global',
      c.get('meta'),
    );
    return c.body(null, 204);
  });
  return r;
}
