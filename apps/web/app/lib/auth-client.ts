import type { GoTrueClient } from '@supabase/auth-js';
import {
  fetchRuntimeConfig,
  resolveSupabaseUrl,
  storageKeyFor,
  storedSessionKeyPattern,
} from './runtime-config.ts';

export type AuthClient = GoTrueClient;

let clientPromise: Promise<AuthClient> | undefined;
let pendingLanding: URLSearchParams | undefined;

/**
 * The one auth client of the page, created on first use: it reads /runtime-config.json, then
 * imports the official auth client (a separate chunk, so no page pays for it before it is needed).
 * Must only be called in the browser (effects and event handlers), never during render or
 * prerendering.
 *
 * `@supabase/auth-js` alone rather than supabase-js (about half the bytes: the site needs no
 * database, storage or realtime client). It is configured exactly as supabase-js's `createClient`
 * configures it, so sessions are interchangeable with any supabase-js app on the same origin:
 * `<url>/auth/v1`, the `apikey` + `Authorization: Bearer <anon key>` headers, and the standard
 * storage key `sb-<first hostname label>-auth-token` (supabase-js derives it; auth-js alone would
 * default to `supabase.auth.token`, hence the explicit value).
 */
export function getAuthClient(): Promise<AuthClient> {
  // Taken out of the URL at once (before any await); kept until a client has used it, so a failed
  // load (offline, bad config) retried by the next caller does not lose the email link's session.
  pendingLanding ??= takeAuthFragment();
  clientPromise ??= (async () => {
    const [config, { AuthClient }] = await Promise.all([fetchRuntimeConfig(), import('@supabase/auth-js')]);
    const projectUrl = resolveSupabaseUrl(config, window.location.origin);
    const client = new AuthClient({
      url: `${projectUrl}/auth/v1`,
      headers: { apikey: config.anonKey, Authorization: `Bearer ${config.anonKey}` },
      storageKey: storageKeyFor(projectUrl),
      persistSession: true,
      autoRefreshToken: true,
      // The email link's session is taken from the URL by takeAuthFragment, not by auth-js.
      detectSessionInUrl: false,
      flowType: 'implicit',
    });
    const landing = pendingLanding;
    pendingLanding = undefined;
    const access_token = landing?.get('access_token');
    const refresh_token = landing?.get('refresh_token');
    if (access_token && refresh_token) {
      // Verified by the service (GET /user) before it is stored; SIGNED_IN follows, as from the URL.
      const { error } = await client.setSession({ access_token, refresh_token });
      if (error) console.error('Could not start the session from the email link', error.message);
    }
    return client;
  })();
  clientPromise.catch(() => {
    // A failed load (offline, bad config) may be retried by the next caller.
    clientPromise = undefined;
  });
  return clientPromise;
}

const AUTH_FRAGMENT_KEYS = ['access_token', 'refresh_token', 'error', 'error_description', 'error_code'];

/**
 * Takes an auth redirect result (an email link lands on `/#access_token=…&refresh_token=…`, or
 * `#error=…`) out of the URL, replacing the history entry, and returns it. auth-js would read it
 * itself and then clear it with `location.hash = ''`, which ADDS a history entry: Back would show
 * the tokens again, and whoever used the browser next could sign in with them.
 */
export function takeAuthFragment(): URLSearchParams | undefined {
  const params = new URLSearchParams(window.location.hash.slice(1));
  if (!AUTH_FRAGMENT_KEYS.some((key) => params.has(key))) return undefined;
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return params;
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
