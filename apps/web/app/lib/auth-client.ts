import type { GoTrueClient } from '@supabase/auth-js';
import {
  type AuthLanding,
  cleanLandingUrl,
  type LandingOutcome,
  linkProblem,
  parseAuthLanding,
} from './auth-landing.ts';
import {
  fetchRuntimeConfig,
  resolveSupabaseUrl,
  storageKeyFor,
  storedSessionKeyPattern,
} from './runtime-config.ts';

export type AuthClient = GoTrueClient;

let clientPromise: Promise<AuthClient> | undefined;
let pendingLanding: AuthLanding | undefined;
let outcome: LandingOutcome | undefined;

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
 *
 * Email links use PKCE (`flowType: 'pkce'`): a link signs in only the browser that asked for it,
 * so a link carrying someone else's session cannot sign a visitor into that account (see
 * lib/auth-landing.ts). The site takes the link's result out of the URL itself (takeAuthLanding)
 * and exchanges the code here, rather than letting auth-js read the URL (`detectSessionInUrl`):
 * auth-js leaves a failed code, and any error, in the URL and the history.
 */
export function getAuthClient(): Promise<AuthClient> {
  // Taken out of the URL at once (before any await); kept until a client has used it, so a failed
  // load (offline, bad config) retried by the next caller does not lose the email link's result.
  pendingLanding ??= takeAuthLanding();
  clientPromise ??= (async () => {
    const [config, { AuthClient }] = await Promise.all([fetchRuntimeConfig(), import('@supabase/auth-js')]);
    const projectUrl = resolveSupabaseUrl(config, window.location.origin);
    const client = new AuthClient({
      url: `${projectUrl}/auth/v1`,
      headers: { apikey: config.anonKey, Authorization: `Bearer ${config.anonKey}` },
      storageKey: storageKeyFor(projectUrl),
      persistSession: true,
      autoRefreshToken: true,
      detectSessionInUrl: false,
      flowType: 'pkce',
      fetch: noteRetryAfter,
    });
    const landing = pendingLanding;
    pendingLanding = undefined;
    if (landing) outcome = await settleLanding(client, landing);
    return client;
  })();
  clientPromise.catch(() => {
    // A failed load (offline, bad config) may be retried by the next caller.
    clientPromise = undefined;
  });
  return clientPromise;
}

let retryAfterSeconds: number | undefined;

/**
 * auth-js keeps only the status and code of an error, not its headers; the per-address mail floor's
 * `429 over_email_send_rate_limit` says in `Retry-After` how long to wait, which the page shows as a
 * countdown. (A hosted project may not expose the header across origins: then it is absent.)
 */
const noteRetryAfter: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    retryAfterSeconds = Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : undefined;
  }
  return response;
};

/** The `Retry-After` of the latest 429 (once), in seconds; undefined when it had none. */
export function takeRetryAfter(): number | undefined {
  const seconds = retryAfterSeconds;
  retryAfterSeconds = undefined;
  return seconds;
}

/** Exchanges a landing's code (SIGNED_IN or PASSWORD_RECOVERY follows) or names its problem. */
async function settleLanding(client: AuthClient, landing: AuthLanding): Promise<LandingOutcome> {
  if (landing.error) return { kind: 'link-failed', problem: linkProblem(landing.error.code) };
  if (!landing.code) return { kind: 'no-session' };
  const { data, error } = await client.exchangeCodeForSession(landing.code);
  // auth-js adds `redirectType` (from the verifier's `/recovery` suffix) without typing it.
  const redirectType = (data as { redirectType?: string | null }).redirectType;
  if (!error) return { kind: 'signed-in', recovery: redirectType === 'recovery' };
  // No verifier here: the link was opened in another browser. /verify has confirmed the address
  // already; only the session stays with the browser that asked for the link.
  if (error.code === 'pkce_code_verifier_not_found') return { kind: 'no-session' };
  console.error('Could not use the email link', error.message);
  return { kind: 'link-failed', problem: linkProblem(error.code) };
}

/**
 * What the email link this page landed with came to, once (undefined: there was none). Loads the
 * auth client only when there is a link to settle.
 */
export async function takeLandingOutcome(): Promise<LandingOutcome | undefined> {
  if (!clientPromise && !pendingLanding && !parseAuthLanding(window.location.search, window.location.hash))
    return outcome;
  await getAuthClient();
  const result = outcome;
  outcome = undefined;
  return result;
}

/**
 * Takes an email link's result (`?code=…`, `error…` in the query or fragment, or tokens in the
 * fragment) out of the URL, replacing the history entry, and returns it. Nothing of it may stay in
 * the history: Back must not show a code or tokens.
 */
export function takeAuthLanding(): AuthLanding | undefined {
  const { pathname, search, hash } = window.location;
  const landing = parseAuthLanding(search, hash);
  if (!landing) return undefined;
  window.history.replaceState(window.history.state, '', cleanLandingUrl(pathname, search, hash));
  return landing;
}

/** True when this browser holds a stored session or the URL carries an email link's result. */
export function hasAuthStateToRestore(): boolean {
  if (parseAuthLanding(window.location.search, window.location.hash)) return true;
  try {
    for (let i = 0; i < window.localStorage.length; i++) {
      if (storedSessionKeyPattern.test(window.localStorage.key(i) ?? '')) return true;
    }
  } catch {
    // Storage can be disabled (privacy mode); then there is no stored session to restore.
  }
  return false;
}
