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

export async function fetchRuntimeConfig(): Promise<RuntimeConfig> {
  const response = await fetch('/runtime-config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`runtime-config.json answered ${response.status}`);
  return parseRuntimeConfig(await response.json());
}
