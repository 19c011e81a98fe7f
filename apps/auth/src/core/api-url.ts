import type { Config } from '../config.ts';

/**
 * The public URL of the API (GoTrue's API_EXTERNAL_URL), without a trailing slash: what email links
 * point at (`…/verify`). Worked out per call, since SITE_URL may be settled after start-up (tests
 * listening on port 0).
 */
export function apiExternalUrl(config: Pick<Config, 'API_EXTERNAL_URL' | 'SITE_URL' | 'API_PATH'>): string {
  return config.API_EXTERNAL_URL ?? `${config.SITE_URL}${config.API_PATH}`;
}
