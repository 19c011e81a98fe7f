import type { Context } from 'hono';
import type { Deps } from '../deps.ts';
import { resolveRedirect } from '../redirect.ts';
import type { AppEnv } from './context.ts';

/** Validates a redirect_to against SITE_URL, loopback (development) and URI_ALLOW_LIST; logs fallbacks. */
export function redirectFor(deps: Deps, c: Context<AppEnv>, candidate: string | undefined | null): string {
  const { url, fellBack } = resolveRedirect(candidate ?? undefined, {
    siteUrl: deps.config.SITE_URL,
    allowList: deps.config.URI_ALLOW_LIST,
    allowLoopback: !deps.config.production,
  });
  if (fellBack)
    c.get('log').warn(
      { rejected: String(candidate).slice(0, 200), fallback: url },
      'redirect_to not allowed (add it to URI_ALLOW_LIST); using SITE_URL',
    );
  return url;
}
