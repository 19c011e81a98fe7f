import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { AuthError } from '../../errors.ts';

export const SERVICE_VERSION = '0.1.0';

/** GET /health: 200 once the database answers, 503 + Retry-After when it does not. */
export function healthRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, {
    method: 'get',
    path: '/health',
    summary: 'Liveness and database reachability',
    responses: { 200: 'Healthy', 503: 'Database unreachable' },
  });
  r.get('/health', async (c) => {
    try {
      await deps.database.ping();
    } catch {
      throw new AuthError('service_unavailable', 'Database unreachable', { headers: { 'Retry-After': '5' } });
    }
    c.header('Cache-Control', 'no-store');
    return c.json({
      version: SERVICE_VERSION,
      name: 'GoTrue',
      description: 'Namaa auth: a Supabase Auth (GoTrue) compatible API',
    });
  });
  return r;
}
