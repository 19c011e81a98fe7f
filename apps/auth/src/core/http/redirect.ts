import type { Context } from 'hono';
import { AuthError } from '../../errors.ts';
import type { Deps } from '../deps.ts';
import { MAX_REDIRECT_URL_LENGTH, resolveRedirect } from '../redirect.ts';
import type { AppEnv } from './context.ts';

/**
 * Validates a redirect_to against SITE_URL, loopback (development) and URI_ALLOW_LIST; logs fallbacks.
 * An absurdly long one is not quietly replaced by SITE_URL but refused with GoTrue's 400: no real
 * callback is that long, and the caller should learn that its link cannot work.
 */
export function redirectFor(deps: Deps, c: Context<AppEnv>, candidate: string | undefined | null): string {
  if (candidate && candidate.length > MAX_REDIRECT_URL_LENGTH)
    throw new AuthError('validation_failed', 'redirect_to is too long');
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
