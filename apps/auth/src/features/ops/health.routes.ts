import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { AuthError } from '../../errors.ts';

export const SERVICE_VERSION = '0.1.0';

/** GET /health: 200 once the database answers, 503 + Retry-After when it does not. */
export function healthEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/health',
      access: 'public',
      summary: 'Liveness and database reachability',
      responses: { 200: 'Healthy', 503: 'Database unreachable' },
      handler: async (c) => {
        try {
          await deps.database.ping();
        } catch {
          throw new AuthError('service_unavailable', 'Database unreachable', {
            headers: { 'Retry-After': '5' },
          });
        }
        c.header('Cache-Control', 'no-store');
        return c.json({
          version: SERVICE_VERSION,
          name: 'GoTrue',
          description: 'Namaa auth: a Supabase Auth (GoTrue) compatible API',
        });
      },
    }),
  ];
}
