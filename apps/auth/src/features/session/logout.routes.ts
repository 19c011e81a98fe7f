import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, queryParam } from '../../core/http/context.ts';
import { requireUser } from '../../core/http/middleware.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { signOut } from './sign-out.ts';

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
