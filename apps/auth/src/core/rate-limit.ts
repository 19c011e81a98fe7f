import { isIPv6 } from 'node:net';
import {
  backoffWait,
  clearBackoff,
  hitCounters,
  hitFloor,
  readCounters,
  readFloor,
  reserveBackoff,
  signinGate,
} from '../db/rate-limits.repo.ts';
import type { UserRow } from '../db/users.repo.ts';
import { AuthError, type ErrorCode, frequencyMessage } from '../errors.ts';
import type { Deps } from './deps.ts';
import { type PerIpLimitName, perIpLimits } from './http/rate-limits.ts';
import { countRateLimitTrip } from './metrics.ts';

export type Limit = {
  key: string;
  limit: number;
  code?: ErrorCode;
  windowSec?: number;
  /**
   * A floor between two hits: at most one per windowSec, measured from the last one counted (its
   * time is stored). A calendar window of one would let two hits either side of its boundary
   * through a moment apart. `limit` only turns it on (any value above 0).
   */
  floor?: boolean;
};

/**
 * The rate-limit identity of a client address: IPv4 as is, IPv6 grouped by its /64 (one subscriber
 * gets a whole /64, so keying on the full address would hand an attacker 2^64 fresh buckets).
 */
export function ipBucket(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) takes two groups; it never reaches the first four.
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

function windowOf(nowMs: number, windowSec: number) {
  const windowMs = windowSec * 1000;
  const start = Math.floor(nowMs / windowMs) * windowMs;
  return { start: new Date(start), retryAfter: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)) };
}

// Neither an address nor a phone number reaches the logs (a phone account's key ends in ":+digits").
const redactKey = (key: string) => key.replace(/:[^:]*@.*$/, ':<email>').replace(/:\+?\d{6,15}$/, ':<phone>');

function tooMany(
  deps: Deps,
  key: string,
  retryAfter: number,
  code: ErrorCode = 'over_request_rate_limit',
  message?: string,
) {
  deps.logger.warn({ limit: redactKey(key), retryAfter }, 'rate limit reached');
  countRateLimitTrip(key);
  return new AuthError(code, message, { headers: { 'Retry-After': String(retryAfter) } });
}

/**
 * Counts this request against each limit (one atomic upsert per window length) and throws 429 with
 * Retry-After when any is exceeded. A limit of 0 disables that check.
 */
export async function enforceRateLimits(
  deps: Deps,
  limits: Limit[],
  windowSec: number,
  /**
   * false: count the hit without refusing (the request goes ahead whatever the counts); 'look':
   * neither count nor refuse, but read the counters with the same number of statements.
   */
  refuse: boolean | 'look' = true,
): Promise<void> {
  const active = limits.filter((l) => l.limit > 0);
  if (active.length === 0) return;
  const now = deps.clock();
  const nowMs = now.getTime();
  const byWindow = new Map<number, Limit[]>();
  for (const l of active) {
    if (l.floor) {
      await enforceFloor(deps, l, l.windowSec ?? windowSec, now, refuse);
      continue;
    }
    const w = l.windowSec ?? windowSec;
    byWindow.set(w, [...(byWindow.get(w) ?? []), l]);
  }
  for (const [w, group] of byWindow) {
    const { start, retryAfter } = windowOf(nowMs, w);
    const keys = group.map((l) => l.key);
    const counts = await (refuse === 'look' ? readCounters : hitCounters)(deps.db, keys, start);
    const over = refuse === true && group.find((l) => (counts.get(l.key) ?? 0) > l.limit);
    if (over) throw tooMany(deps, over.key, retryAfter, over.code);
  }
}

/**
 * One floor (Limit.floor): one statement in every mode, as a window group is, so counting, looking
 * and refusing cost the same round trips.
 */
async function enforceFloor(
  deps: Deps,
  l: Limit,
  gapSec: number,
  now: Date,
  refuse: boolean | 'look',
): Promise<void> {
  if (refuse === 'look') {
    await readFloor(deps.db, l.key);
    return;
  }
  const { taken, last } = await hitFloor(deps.db, l.key, now, gapSec, refuse);
  if (taken) return;
  // A concurrent hit may have stamped the row after this statement's snapshot: wait the whole gap.
  const left = last ? Math.ceil((last.getTime() + gapSec * 1000 - now.getTime()) / 1000) : gapSec;
  const wait = Math.max(1, Math.min(gapSec, left));
  throw tooMany(deps, l.key, wait, l.code, frequencyMessage(wait));
}

/** The caller's per-IP limit of one row of the table (core/http/rate-limits.ts). */
export function perIpLimit(deps: Deps, name: PerIpLimitName, ip: string): Limit {
  const spec: { key: string; setting: keyof Deps['config']['rateLimits']; windowSec?: number } =
    perIpLimits[name];
  return {
    key: `${spec.key}:${ipBucket(ip)}`,
    limit: deps.config.rateLimits[spec.setting],
    ...(spec.windowSec ? { windowSec: spec.windowSec } : {}),
  };
}

/**
 * The per-IP budget (RATE_LIMIT_OTP_PER_IP) of requests that send mail or change credentials:
 * sign-up, recover, resend, PUT /user and GET /reauthenticate.
 */
export function enforceOtpIpLimit(deps: Deps, ip: string): Promise<void> {
  return enforceRateLimits(deps, [perIpLimit(deps, 'otp', ip)], deps.config.rateLimits.window);
}

/**
 * The per-address hourly budget of 6-digit codes tried from any IP (email codes at POST /verify and
 * reauthentication nonces): what bounds guessing one of 10⁶ codes; re-mailing does not reset it.
 */
export function codeAttemptLimit(deps: Deps, email: string): Limit {
  return {
    key: codeAttemptKey(email),
    limit: deps.config.rateLimits.verifyCodesPerAddress,
    windowSec: 3600,
  };
}

/**
 * Outgoing-mail quotas for one recipient: a floor between two messages, a per-address count per
 * window and a global hourly count. Called before the account is looked up, so existing and unknown
 * addresses are counted and answered alike (a 429 reveals nothing about the account).
 */
export function emailQuota(deps: Deps, email: string): Promise<void> {
  const q = emailQuotaLimits(deps, email);
  return enforceRateLimits(deps, [...q.recipient, q.global], deps.config.rateLimits.emailWindow);
}

/**
 * The two halves of emailQuota, for a caller that knows before counting whether it sends mail
 * (sign-up: a confirmed address gets no mail, so its recipient limits must not apply to it).
 */
export function emailQuotaLimits(deps: Deps, email: string): { recipient: Limit[]; global: Limit } {
  const rl = deps.config.rateLimits;
  const code = 'over_email_send_rate_limit' as const;
  return {
    recipient: [
      {
        key: emailFloorKey(email),
        limit: rl.emailFloor > 0 ? 1 : 0,
        windowSec: rl.emailFloor || 1,
        floor: true,
        code,
      },
      { key: emailWindowKey(email), limit: rl.emailPerAddress, code },
    ],
    global: { key: 'email:global', limit: rl.emailSentPerHour, windowSec: 3600, code },
  };
}

/**
 * The global hourly count of phone-factor SMS (GoTrue's RATE_LIMIT_SMS_SENT): each one costs money,
 * and the per-factor resend floor alone lets many factors send at the same time.
 */
export function smsQuota(deps: Deps): Promise<void> {
  return enforceRateLimits(
    deps,
    [
      {
        key: 'sms:global',
        limit: deps.config.rateLimits.smsSentPerHour,
        windowSec: 3600,
        code: 'over_sms_send_rate_limit',
      },
    ],
    3600,
  );
}

// The keys that name a person: an address (lower-cased, as stored) or a phone number (E.164, as
// stored). rateLimitKeysNaming lists them all, so an erasure deletes every one (docs/pdpl.md).
const signinAccountKey = (email: string) => `signin:acct:${email}`;
const emailWindowKey = (email: string) => `email:${email}`;
const emailFloorKey = (email: string) => `email:floor:${email}`;
const codeAttemptKey = (address: string) => `verify:code:${address}`;
/** What a number's codes are counted under in codeAttemptLimit (an address's are the address). */
export const phoneCodeAddress = (phone: string) => `phone:${phone}`;
/** One number's resend floor (features/otp/phone.ts). */
export const smsFloorKey = (phone: string) => `sms:floor:${phone}`;

/**
 * The back-off key of a sign-in: the account together with the caller's network. The address
 * comes before the network (as in knownNetworkKey), so every row of one address starts alike and an
 * erasure finds them by a prefix range of the primary key (migration 0015 keeps `key` in byte order).
 */
export function signinBackoffKey(email: string, ip: string): string {
  return `backoff:signin:${email}:${ipBucket(ip)}`;
}

/** Marks a network the account has signed in from (see SIGNIN_GATE_SQL): exempt from the account window. */
export function knownNetworkKey(email: string, ip: string): string {
  return `known:signin:${email}:${ipBucket(ip)}`;
}

/**
 * Every rate-limit row that names these addresses and numbers: exact keys, and the prefixes of the
 * per-network ones (an address never holds `:`, so `known:signin:a@x.y:` is no other address's).
 */
export function rateLimitKeysNaming(who: { emails: string[]; phones: string[] }): {
  exact: string[];
  prefixes: string[];
} {
  return {
    exact: [
      ...who.emails.flatMap((e) => [
        signinAccountKey(e),
        emailWindowKey(e),
        emailFloorKey(e),
        codeAttemptKey(e),
      ]),
      ...who.phones.flatMap((p) => [smsFloorKey(p), codeAttemptKey(phoneCodeAddress(p))]),
    ],
    prefixes: who.emails.flatMap((e) => [`backoff:signin:${e}:`, `known:signin:${e}:`]),
  };
}

/**
 * Progressive back-off for failed sign-ins per (account, client network): after the free attempts
 * each further failure doubles the wait (1 s, 2 s, 4 s … capped), never a permanent lock-out. Keyed
 * with the network so an attacker elsewhere cannot lock the owner out; the per-account window
 * (RATE_LIMIT_SIGNIN_PER_ACCOUNT) bounds distributed guessing, and networks the account signed in
 * from within 30 days skip it, so filling it from elsewhere does not lock the owner out either.
 * Unknown emails go through the same steps, so the answer does not reveal whether the account exists.
 *
 * This is the whole rate-limit gate of a password sign-in in one database statement: the per-IP and
 * per-account window limits (429 over_request_rate_limit with the window's Retry-After, as
 * enforceRateLimits) and, when `reserve` and within them, the back-off reservation (the attempt
 * counts as a failure until a success clears it), plus the account look-up (`lookUp`) in the same round trip. Returns the
 * back-off key to clear on success and the account, if any.
 */
export async function enforceSigninLimits(
  deps: Deps,
  email: string,
  ip: string,
  opts: { reserve: boolean; lookUp: boolean },
): Promise<{ backoffKey: string | undefined; knownKey: string | undefined; user: UserRow | undefined }> {
  const rl = deps.config.rateLimits;
  const now = deps.clock();
  const ipLimit = perIpLimit(deps, 'signin', ip);
  const ipKey = ipLimit.limit > 0 ? ipLimit.key : null;
  const accountKey = rl.signinPerAccount > 0 ? signinAccountKey(email) : null;
  const knownKey = accountKey ? knownNetworkKey(email, ip) : null;
  const backoffKey = opts.reserve && rl.signinBackoffAfter > 0 ? signinBackoffKey(email, ip) : null;
  const { start, retryAfter } = windowOf(now.getTime(), rl.window);
  const gate = await signinGate(deps.db, {
    ipKey,
    accountKey,
    windowStart: start,
    ipLimit: ipLimit.limit,
    accountLimit: rl.signinPerAccount,
    backoffKey,
    now,
    freeAttempts: rl.signinBackoffAfter,
    maxDelaySec: rl.signinBackoffMax,
    email: opts.lookUp ? email : null,
    knownKey,
  });
  const over = [ipKey, accountKey].find((k) => k !== null && gate.over.includes(k));
  if (over) throw tooMany(deps, over, retryAfter);
  if (backoffKey && !gate.reserved)
    throw tooMany(
      deps,
      backoffKey,
      await backoffWait(deps.db, backoffKey, now, rl.signinBackoffAfter, rl.signinBackoffMax),
    );
  return { backoffKey: backoffKey ?? undefined, knownKey: knownKey ?? undefined, user: gate.user };
}

/** The back-off key of one MFA factor's verifications. */
export function mfaBackoffKey(factorId: string): string {
  return `backoff:mfa:${factorId}`;
}

/**
 * Per-factor back-off of MFA verifications (RATE_LIMIT_MFA_BACKOFF_AFTER / _MAX): reserves this
 * attempt, counted as a failure until a success clears the key, and throws 429 with Retry-After while
 * the factor waits out its back-off. Keyed by the factor alone, not the network: whoever guesses
 * already holds the password, and spreading guesses over addresses must not multiply them. Returns
 * the streak length including this attempt (undefined when the back-off is off).
 */
export async function reserveFactorAttempt(deps: Deps, factorId: string): Promise<number | undefined> {
  const { mfaBackoffAfter: free, mfaBackoffMax: max } = deps.config.rateLimits;
  if (free <= 0) return undefined;
  const key = mfaBackoffKey(factorId);
  const now = deps.clock();
  const streak = await reserveBackoff(deps.db, key, now, free, max);
  if (streak === undefined) throw tooMany(deps, key, await backoffWait(deps.db, key, now, free, max));
  return streak;
}

export { clearBackoff };
