// The per-IP rate limits in one table: which endpoints count against which key, and the setting
// that bounds it. core/rate-limit.ts builds the limits from here (perIpLimit), and
// test/core/http/rate-limits.test.ts drives each listed endpoint over its limit.
//
// The endpoints apply their limit where their domain function reaches it, not in a middleware in
// front of the handler: a request refused by validation (a malformed email, a weak password) does
// not count, a 429 never hides such an answer, and on the routes that answer no sooner than the
// response floor (sign-up, recover, resend) a 429 waits for the floor like every other answer.
import type { Config } from '../../config.ts';

type PerIpLimit = {
  /** Counter key prefix; the client's network (ipBucket) completes it. */
  key: string;
  /** The limit's setting in `config.rateLimits` (0 turns the limit off). */
  setting: keyof Config['rateLimits'];
  /** The window in seconds; default RATE_LIMIT_WINDOW. */
  windowSec?: number;
  /**
   * The endpoints that count against this key, as `METHOD /path` (define-endpoint.ts paths), with
   * the request kind in brackets where one path has several.
   */
  endpoints: readonly string[];
};

export const perIpLimits = {
  // Password sign-ins; counted inside the sign-in gate's one statement (rate-limit.ts).
  signin: { key: 'signin:ip', setting: 'signinPerIp', endpoints: ['POST /token?grant_type=password'] },
  // Requests that send mail or change credentials.
  otp: {
    key: 'otp:ip',
    setting: 'otpPerIp',
    endpoints: [
      'POST /signup',
      'POST /recover',
      'POST /resend',
      'POST /otp',
      'PUT /user',
      'GET /reauthenticate',
      'DELETE /account',
    ],
  },
  // Anonymous sign-ins (POST /signup with neither email nor phone): each makes an account, so
  // GoTrue gives them an hourly budget of their own (RATE_LIMIT_ANONYMOUS_USERS, 30 per hour).
  anonymous: {
    key: 'anonymous:ip',
    setting: 'anonymousPerIp',
    windowSec: 3600,
    endpoints: ['POST /signup (anonymous)'],
  },
  // Passkey sign-in ceremonies (GoTrue's RATE_LIMIT_PASSKEY): both steps, as neither needs an account.
  passkey: {
    key: 'passkey:ip',
    setting: 'passkeyPerIp',
    endpoints: ['POST /passkeys/authentication/options', 'POST /passkeys/authentication/verify'],
  },
  // Email links and codes.
  verify: { key: 'verify:ip', setting: 'verifyPerIp', endpoints: ['GET /verify', 'POST /verify'] },
  // MFA challenge and verify (GoTrue: 15 per minute); five-minute windows, like the per-factor budget.
  mfa: {
    key: 'mfa:ip',
    setting: 'mfaPerIp',
    windowSec: 300,
    endpoints: ['POST /factors/{factorId}/challenge', 'POST /factors/{factorId}/verify'],
  },
} as const satisfies Record<string, PerIpLimit>;

export type PerIpLimitName = keyof typeof perIpLimits;
