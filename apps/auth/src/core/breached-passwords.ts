// Breached passwords (GoTrue's PASSWORD_HIBP_ENABLED): the password's SHA-1 is looked up in Have I
// Been Pwned's corpus through the k-anonymity range API: only the first 5 hex digits of the hash
// leave the server, the API answers every suffix sharing them (padded, so the answer's size says
// nothing either), and the match is made here. The answers are cached per prefix for an hour, so a
// burst of sign-ups does not become a burst of outgoing requests.
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import { AuthError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { PWNED_MESSAGE } from './password-policy.ts';

const TIMEOUT_MS = 5_000; // GoTrue's
const CACHE_TTL_MS = 60 * 60 * 1000;
const CACHE_PREFIXES = 512; // ~30 KB each: at most ~15 MB
const cache = new Map<string, { body: string; at: number }>();

/** Fetches (or reuses) the range answer for a 5-hex-digit prefix: `SUFFIX:COUNT` lines. */
async function rangeOf(
  hibp: NonNullable<Config['hibp']>,
  prefix: string,
  fetchImpl: typeof fetch,
): Promise<string> {
  const key = `${hibp.apiUrl}|${prefix}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.body;
  const res = await fetchImpl(`${hibp.apiUrl}/range/${prefix}`, {
    headers: { 'user-agent': hibp.userAgent, 'add-padding': 'true' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: 'error',
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`range API answered ${res.status}`);
  }
  const body = (await res.text()).toUpperCase();
  cache.delete(key);
  cache.set(key, { body, at: Date.now() });
  // Map keeps insertion order: the first key is the least recently fetched.
  if (cache.size > CACHE_PREFIXES) cache.delete(cache.keys().next().value as string);
  return body;
}

/** Whether the password is in the corpus (a padding line has count 0 and does not count). */
export async function isBreached(
  hibp: NonNullable<Config['hibp']>,
  password: string,
  fetchImpl: typeof fetch = fetch,
): Promise<boolean> {
  const sha1 = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
  const body = await rangeOf(hibp, sha1.slice(0, 5), fetchImpl);
  const suffix = sha1.slice(5);
  for (const line of body.split('\n')) {
    const [s, count] = line.trim().split(':');
    if (s === suffix) return Number(count) > 0;
  }
  return false;
}

/**
 * Refuses a breached password with GoTrue's `422 weak_password`, reason `pwned`. When the API is
 * unreachable: let it through with a warning (fail open, the default) or refuse the request with
 * GoTrue's message (fail closed; a 503 here, GoTrue's 500).
 */
export async function assertNotBreached(
  deps: { config: Config; logger: Logger },
  password: string,
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  const hibp = deps.config.hibp;
  if (!hibp) return;
  let breached: boolean;
  try {
    breached = await isBreached(hibp, password, fetchImpl);
  } catch (err) {
    if (hibp.failClosed) {
      deps.logger.error({ err: (err as Error).message }, 'breached-password check unavailable: refused');
      throw new AuthError(
        'service_unavailable',
        'Unable to perform password strength check with HaveIBeenPwned.org.',
        { headers: { 'Retry-After': '5' } },
      );
    }
    deps.logger.warn(
      { err: (err as Error).message },
      'breached-password check unavailable: the password is being allowed',
    );
    return;
  }
  if (breached)
    throw new AuthError('weak_password', PWNED_MESSAGE, { extra: { weak_password: { reasons: ['pwned'] } } });
}

/** Tests: forget cached ranges. */
export function clearBreachedCache(): void {
  cache.clear();
}
