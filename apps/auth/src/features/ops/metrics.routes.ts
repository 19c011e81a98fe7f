import type { Context } from 'hono';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { renderMetrics } from '../../core/metrics.ts';
import { safeEqual, sha256 } from '../../crypto/tokens.ts';
import { AuthError } from '../../errors.ts';

/**
 * GET /metrics: the Prometheus exposition page (core/metrics.ts). Mounted by app.ts only when
 * METRICS_ENABLED; with METRICS_TOKEN it needs `Authorization: Bearer <token>`, compared through
 * hashes in constant time (neither its content nor its length shows in the timing).
 */
export function metricsHandler(deps: Deps) {
  const expected = deps.config.METRICS_TOKEN === undefined ? undefined : sha256(deps.config.METRICS_TOKEN);
  return async (c: Context<AppEnv>) => {
    if (expected !== undefined) {
      const header = c.req.header('authorization') ?? '';
      const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
      if (!safeEqual(sha256(given), expected))
        throw new AuthError('no_authorization', 'This endpoint requires the metrics bearer token', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
    }
    const page = await renderMetrics();
    return c.body(page.body, 200, { 'Content-Type': page.contentType, 'Cache-Control': 'no-store' });
  };
}
