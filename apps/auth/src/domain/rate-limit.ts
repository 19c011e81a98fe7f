import type { Deps } from '../deps.ts';
import { AuthError, type ErrorCode } from '../errors.ts';
import { hitCounters } from '../repositories/rate-limits.ts';

export type Limit = { key: string; limit: number; code?: ErrorCode };

/**
 * Counts this request against each limit (one atomic upsert) and throws 429 with Retry-After when
 * any is exceeded. A limit of 0 disables that check.
 */
export async function enforceRateLimits(deps: Deps, limits: Limit[], windowSec: number): Promise<void> {
  const active = limits.filter((l) => l.limit > 0);
  if (active.length === 0) return;
  const nowMs = deps.clock().getTime();
  const windowMs = windowSec * 1000;
  const windowStart = new Date(Math.floor(nowMs / windowMs) * windowMs);
  const counts = await hitCounters(
    deps.db,
    active.map((l) => l.key),
    windowStart,
  );
  const over = active.find((l) => (counts.get(l.key) ?? 0) > l.limit);
  if (!over) return;
  const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - nowMs) / 1000));
  deps.logger.warn({ limit: over.key.replace(/:[^:]*@.*$/, ':<email>'), retryAfter }, 'rate limit reached');
  throw new AuthError(over.code ?? 'over_request_rate_limit', undefined, {
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** Per-address email quota (applied whether or not the account exists, so a 429 reveals nothing). */
export function emailQuota(deps: Deps, email: string): Promise<void> {
  return enforceRateLimits(
    deps,
    [
      {
        key: `email:${email}`,
        limit: deps.config.rateLimits.emailPerAddress,
        code: 'over_email_send_rate_limit',
      },
    ],
    deps.config.rateLimits.emailWindow,
  );
}
