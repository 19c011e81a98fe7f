/** `GET /runtime-config.json`, served by the Node process from its environment (no rebuild needed). */
export type RuntimeConfig = { supabaseUrl: string; anonKey: string };

export function parseRuntimeConfig(value: unknown): RuntimeConfig {
  if (!value || typeof value !== 'object') throw new Error('runtime-config.json is not an object');
  const { supabaseUrl, anonKey } = value as Record<string, unknown>;
  if (typeof supabaseUrl !== 'string' || typeof anonKey !== 'string') {
    throw new Error('runtime-config.json needs string fields supabaseUrl and anonKey');
  }
  return { supabaseUrl, anonKey };
}

/** An empty supabaseUrl means "the auth API is on the same origin as the page". */
export function resolveSupabaseUrl(config: RuntimeConfig, pageOrigin: string): string {
  return config.supabaseUrl === '' ? pageOrigin : config.supabaseUrl.replace(/\/+$/, '');
}

/** The key supabase-js derives for a project URL: `sb-<first label of the hostname>-auth-token`. */
export function storageKeyFor(supabaseUrl: string): string {
  return `sb-${new URL(supabaseUrl).hostname.split('.')[0]}-auth-token`;
}

export const storedSessionKeyPattern = /^sb-.+-auth-token$/;

let pending: Promise<RuntimeConfig> | undefined;

/**
 * Read once per page and shared: the auth client, the service settings and the account page's own
 * endpoints all ask for it while the page starts (three requests, three answers to parse, before). A
 * failure lets the next ask retry.
 */
export function fetchRuntimeConfig(): Promise<RuntimeConfig> {
  pending ??= (async () => {
    const response = await fetch('/runtime-config.json', { cache: 'no-store' });
    if (!response.ok) throw new Error(`runtime-config.json answered ${response.status}`);
    return parseRuntimeConfig(await response.json());
  })();
  pending.catch(() => {
    pending = undefined;
  });
  return pending;
}
