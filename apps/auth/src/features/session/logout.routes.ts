import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { LOGOUT_SCOPES, signOut } from './sign-out.ts';

export function logoutEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/logout',
      access: 'user',
      summary: 'End sessions: global (all, default), local (this one) or others',
      query: z.object({ scope: z.enum(LOGOUT_SCOPES).optional() }),
      responses: { 204: 'Signed out' },
      handler: async (c, { query }) => {
        const { user, session } = c.get('auth');
        await signOut(
          deps,
          { userId: user.id, sessionId: session.id },
          query('scope') || 'global',
          c.get('meta'),
        );
        return c.body(null, 204);
      },
    }),
  ];
}
