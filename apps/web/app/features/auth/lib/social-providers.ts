/**
 * The third-party providers the auth service has switched on (`GET /auth/v1/settings` → `external`),
 * in the order the site shows them. Read after hydration only (the prerendered page has no buttons):
 * a visitor sees only providers that work, and none when the service offers none.
 */
import { fetchRuntimeConfig, resolveSupabaseUrl } from '~/lib/runtime-config.ts';

export const SOCIAL_PROVIDER_ORDER = ['google', 'apple', 'azure', 'github', 'x', 'oidc'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDER_ORDER)[number];

export type EnabledProviders = { providers: SocialProvider[]; oidcName: string };

/** Parses the settings answer (anything unexpected: no providers). */
export function enabledProviders(settings: unknown): EnabledProviders {
  const s = (settings ?? {}) as { external?: Record<string, unknown>; oidc_provider_name?: unknown };
  const external = s.external ?? {};
  return {
    providers: SOCIAL_PROVIDER_ORDER.filter((p) => external[p] === true),
    oidcName: typeof s.oidc_provider_name === 'string' ? s.oidc_provider_name : 'OpenID Connect',
  };
}

let pending: Promise<EnabledProviders> | undefined;

export function fetchEnabledProviders(): Promise<EnabledProviders> {
  pending ??= (async () => {
    const config = await fetchRuntimeConfig();
    const url = resolveSupabaseUrl(config, window.location.origin);
    const res = await fetch(`${url}/auth/v1/settings`, { headers: { apikey: config.anonKey } });
    if (!res.ok) throw new Error(`settings answered ${res.status}`);
    return enabledProviders(await res.json());
  })();
  pending.catch(() => {
    pending = undefined;
  });
  return pending;
}
