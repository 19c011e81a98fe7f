import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { AppEnv } from './context.ts';

/**
 * Registers a route in the OpenAPI document from the same zod schemas the handler validates with.
 * (Validation itself runs in the handler through parseBody, so every failure has GoTrue's shape.)
 */
export function documentRoute(
  router: OpenAPIHono<AppEnv>,
  r: {
    method: RouteConfig['method'];
    path: string;
    summary: string;
    body?: z.ZodType;
    query?: z.ZodObject;
    responses?: Record<number, string>;
    auth?: boolean;
  },
): void {
  router.openAPIRegistry.registerPath({
    method: r.method,
    path: r.path,
    summary: r.summary,
    ...(r.auth ? { security: [{ bearerAuth: [] }] } : {}),
    request: {
      // biome-ignore lint/suspicious/noExplicitAny: zod-openapi's request types are stricter than needed here
      ...(r.query ? { query: r.query as any } : {}),
      // biome-ignore lint/suspicious/noExplicitAny: see above
      ...(r.body ? { body: { content: { 'application/json': { schema: r.body as any } } } } : {}),
    },
    responses: Object.fromEntries(
      Object.entries(r.responses ?? { 200: 'OK' }).map(([status, description]) => [status, { description }]),
    ),
  });
}
