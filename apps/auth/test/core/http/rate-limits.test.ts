// The per-IP rate-limit table (core/http/rate-limits.ts) tells the truth: every endpoint it lists
// answers 429 over_request_rate_limit once its key's limit is used up, on the real service. Each
// endpoint is driven from an address of its own (X-Forwarded-For from a trusted proxy), so the
// endpoints sharing a key do not use up each other's budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perIpLimits } from '../../../src/core/http/rate-limits.ts';
import { awayFromWindowEdge } from '../../support/rate-window.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Rate-Table-Pass-4471';

let t: TestServer;
let accessToken: string;
let email: string;
let factorId: string;
let nextHost = 1;
/** A client address never used before in this file. */
const freshIp = () => `10.77.0.${nextHost++}`;

beforeAll(async () => {
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_SIGNIN_PER_IP: '1',
    RATE_LIMIT_OTP_PER_IP: '1',
    RATE_LIMIT_VERIFY_PER_IP: '1',
    RATE_LIMIT_MFA_PER_IP: '1',
    RATE_LIMIT_ANONYMOUS_USERS: '1',
    EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
    PASSKEY_ENABLED: 'true',
    RATE_LIMIT_PASSKEY_PER_IP: '1',
  });
  email = uniqueEmail('rate-table');
  const signup = await call(
    { method: 'POST', path: '/signup', body: { email, password: PASSWORD } },
    freshIp(),
  );
  accessToken = ((await signup.json()) as { access_token: string }).access_token;
  const factor = await call(
    { method: 'POST', path: '/factors', body: { factor_type: 'totp' }, auth: true },
    freshIp(),
  );
  factorId = ((await factor.json()) as { id: string }).id;
});
afterAll(async () => {
  await t?.close();
});

type Request = { method: string; path: string; body?: unknown; auth?: boolean };

function call(r: Request, ip: string): Promise<Response> {
  const headers: Record<string, string> = { 'x-forwarded-for': ip };
  if (r.auth) headers.authorization = `Bearer ${accessToken}`;
  return t.api(r.path, {
    method: r.method,
    headers,
    redirect: 'manual',
    ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
  });
}

/** A well-formed request for each listed endpoint, reaching the point where its limit is counted. */
const requests: Record<string, () => Request> = {
  'POST /token?grant_type=password': () => ({
    method: 'POST',
    path: '/token?grant_type=password',
    body: { email, password: 'not-the-password' },
  }),
  'POST /signup': () => ({
    method: 'POST',
    path: '/signup',
    body: { email: uniqueEmail('rt'), password: PASSWORD },
  }),
  'POST /recover': () => ({ method: 'POST', path: '/recover', body: { email: uniqueEmail('rt') } }),
  'POST /resend': () => ({
    method: 'POST',
    path: '/resend',
    body: { type: 'signup', email: uniqueEmail('rt') },
  }),
  'POST /signup (anonymous)': () => ({ method: 'POST', path: '/signup', body: { data: { n: 1 } } }),
  'POST /otp': () => ({ method: 'POST', path: '/otp', body: { email: uniqueEmail('rt') } }),
  'PUT /user': () => ({ method: 'PUT', path: '/user', body: { data: { n: 1 } }, auth: true }),
  'GET /reauthenticate': () => ({ method: 'GET', path: '/reauthenticate', auth: true }),
  'POST /passkeys/authentication/options': () => ({
    method: 'POST',
    path: '/passkeys/authentication/options',
    body: {},
  }),
  'POST /passkeys/authentication/verify': () => ({
    method: 'POST',
    path: '/passkeys/authentication/verify',
    body: { challenge_id: crypto.randomUUID(), credential: { id: 'x' } },
  }),
  // A wrong nonce: counted, then refused (the account stays).
  'DELETE /account': () => ({ method: 'DELETE', path: '/account', body: { nonce: '000000' }, auth: true }),
  'GET /verify': () => ({ method: 'GET', path: '/verify?token=not-a-token&type=signup' }),
  'POST /verify': () => ({
    method: 'POST',
    path: '/verify',
    body: { type: 'signup', token_hash: 'not-a-token' },
  }),
  'POST /factors/{factorId}/challenge': () => ({
    method: 'POST',
    path: `/factors/${factorId}/challenge`,
    body: {},
    auth: true,
  }),
  'POST /factors/{factorId}/verify': () => ({
    method: 'POST',
    path: `/factors/${factorId}/verify`,
    body: { challenge_id: crypto.randomUUID(), code: '000000' },
    auth: true,
  }),
};

/** The refusal: 429 in JSON, or for the email link a redirect with the error in the fragment. */
async function refusal(res: Response): Promise<string | undefined> {
  if (res.status === 303) {
    const hash = new URL(res.headers.get('location') as string).hash;
    return new URLSearchParams(hash.slice(1)).get('error_code') ?? undefined;
  }
  if (res.status !== 429) return undefined;
  return ((await res.json()) as { error_code: string }).error_code;
}

describe('per-IP rate-limit table', () => {
  for (const [name, spec] of Object.entries(perIpLimits))
    for (const endpoint of spec.endpoints)
      it(`${name}: ${endpoint} answers 429 past ${spec.setting}`, async () => {
        const build = requests[endpoint];
        expect(build, `a request for ${endpoint}`).toBeDefined();
        if (!build) return;
        await awayFromWindowEdge('windowSec' in spec ? spec.windowSec : t.config.rateLimits.window);
        const ip = freshIp();
        const first = await call(build(), ip);
        expect(await refusal(first)).not.toBe('over_request_rate_limit');
        expect(await refusal(await call(build(), ip))).toBe('over_request_rate_limit');
        // Another address still has its budget.
        expect(await refusal(await call(build(), freshIp()))).not.toBe('over_request_rate_limit');
      });
});
