import type { SupabaseClient } from '@supabase/supabase-js';
import { fetchRuntimeConfig, resolveSupabaseUrl, storedSessionKeyPattern } from './runtime-config.ts';

export type AuthClient = SupabaseClient['auth'];

let clientPromise: Promise<AuthClient> | undefined;

/**
 * The one auth client of the page, created on first use: it reads /runtime-config.json, then
 * imports supabase-js (a separate chunk, so no page pays for it before it is needed). Must only be
 * called in the browser (effects and event handlers), never during render or prerendering.
 */
export function getAuthClient(): Promise<AuthClient> {
  clientPromise ??= (async () => {
    const [config, { createClient }] = await Promise.all([
      fetchRuntimeConfig(),
      import('@supabase/supabase-js'),
    ]);
    const client = createClient(resolveSupabaseUrl(config, window.location.origin), config.anonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
    });
    return client.auth;
  })();
  clientPromise.catch(() => {
    // A failed load (offline, bad config) may be retried by the next caller.
    clientPromise = undefined;
  });
  return clientPromise;
}

/** True when this browser holds a stored session or the URL carries an auth redirect result. */
export function hasAuthStateToRestore(): boolean {
  const params = new URLSearchParams(`${window.location.hash.slice(1)}&${window.location.search.slice(1)}`);
  if (['access_token', 'error', 'error_description', 'error_code'].some((key) => params.has(key)))
    return true;
  try {
    for (let i = 0; i < window.localStorage.length; i++) {
      if (storedSessionKeyPattern.test(window.localStorage.key(i) ?? '')) return true;
    }
  } catch {
    // Storage can be disabled (privacy mode); then there is no stored session to restore.
  }
  return false;
}
