// Parsing of the admin API's own input: Go durations (ban_duration), imported password hashes,
// phone numbers, path ids and pagination. Each refusal is GoTrue's answer for it.
import { argon2ParamsAcceptable } from '../../crypto/passwords.ts';
import { AuthError } from '../../errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id: GoTrue answers a malformed one with 404 validation_failed "<name> must be an UUID". */
export function pathUuid(value: string, name: 'user_id' | 'factor_id'): string {
  if (!UUID.test(value)) throw new AuthError('validation_failed', `${name} must be an UUID`, { status: 404 });
  return value.toLowerCase();
}

/** A body id (`POST /admin/users {id}`): 400, it is the request that is wrong. */
export function bodyUuid(value: string): string {
  if (!UUID.test(value)) throw new AuthError('validation_failed', 'id must be an UUID');
  return value.toLowerCase();
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
/** The longest ban accepted: 1000 years (GoTrue's docs suggest 876000h = 100 years for "forever"). */
const MAX_BAN_MS = 1000 * 365.25 * 86_400_000;

/**
 * `ban_duration`: a Go duration ("24h", "1h30m", "876000h") or "none" (lifts the ban), as GoTrue's
 * time.ParseDuration reads it. Returns the ban's length in ms, or null for "none".
 */
export function parseBanDuration(raw: string): number | null {
  if (raw === 'none') return null;
  const fail = () =>
    new AuthError('validation_failed', `invalid format for ban duration: ${raw.slice(0, 40)}`);
  if (raw.length > 64 || !/^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/.test(raw)) throw fail();
  let ms = 0;
  for (const [, amount, unit] of raw.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g))
    ms += Number(amount) * (UNIT_MS[unit as string] as number);
  if (!Number.isFinite(ms) || ms > MAX_BAN_MS) throw fail();
  return ms;
}

/**
 * `password_hash`: a bcrypt (`$2a$`, `$2b$`, `$2y$`) or argon2 (`$argon2id$`, `$argon2i$`) hash moved
 * in from another system, stored as given and verified at sign-in (crypto/passwords.ts, which also
 * rehashes it to our argon2id parameters then). An argon2 hash whose cost parameters are outside
 * GoTrue's caps would never verify, so it is refused here rather than stored.
 */
export function parsePasswordHash(hash: string): string {
  const bcrypt = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
  const argon2 = /^\$argon2(?:id|i)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
  if (bcrypt.test(hash)) {
    const cost = Number(hash.slice(4, 6));
    if (cost >= 4 && cost <= 31) return hash;
  } else if (argon2.test(hash) && argon2ParamsAcceptable(hash)) return hash;
  throw new AuthError(
    'validation_failed',
    'Invalid password hash: only bcrypt ($2a$/$2b$/$2y$) and argon2 ($argon2id$/$argon2i$) hashes are supported',
  );
}

/** The most users one page may hold (GoTrue sets no cap; a page of millions would be a denial of service). */
export const MAX_PER_PAGE = 1000;

/**
 * `page` and `per_page`: supabase-js always sends both, empty when not given, so "" is the default
 * (page 1, 50 per page). Anything but a positive integer (per_page up to MAX_PER_PAGE) is GoTrue's
 * 400 "Bad Pagination Parameters".
 */
export function parsePagination(
  page: string | undefined,
  perPage: string | undefined,
): { page: number; perPage: number } {
  const read = (v: string | undefined, fallback: number, max: number) => {
    if (v === undefined || v === '') return fallback;
    if (!/^\d{1,9}$/.test(v)) throw new AuthError('validation_failed', 'Bad Pagination Parameters');
    const n = Number(v);
    if (n < 1 || n > max) throw new AuthError('validation_failed', 'Bad Pagination Parameters');
    return n;
  };
  return { page: read(page, 1, 1_000_000_000), perPage: read(perPage, 50, MAX_PER_PAGE) };
}
