// Property-based tests (fast-check) over every endpoint's input parsing (issue 6): whatever the body,
// query string or content type, the service never answers 5xx, and every error is a JSON body in
// GoTrue's shape (legacy `{code, error_code, msg}` or, with the API-version header, `{code, message}`).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

let t: TestServer;
let accessToken: string;
const RUNS = Number(process.env.PROPERTY_RUNS ?? 40);

beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', PASSKEY_ENABLED: 'true' });
  const { data } = await t.client().auth.signUp({ email: uniqueEmail('prop'), password: 'correct horse' });
  accessToken = data.session?.access_token as string;
});
afterAll(async () => {
  await t?.close();
});

const FIELDS = [
  'email',
  'password',
  'data',
  'refresh_token',
  'type',
  'token',
  'token_hash',
  'redirect_to',
  'code_challenge',
  'code_challenge_method',
  'auth_code',
  'code_verifier',
  'phone',
  'factor_type',
  'friendly_name',
  'challenge_id',
  'credential',
  'code',
  'nonce',
  'gotrue_meta_security',
  '__proto__',
  'constructor',
];

// Values a hostile client would try: any JSON, huge and odd strings, injection-looking text.
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 300, unit: 'grapheme' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'a'.repeat(5000),
    "' or 1=1 --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    'user@example.com\r\nBcc: x@y.z',
    '１２３４５６',
    'نماء@مثال.السعودية',
    -1,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    null,
  ),
  fc.constantFrom(
    'signup',
    'recovery',
    'magiclink',
    'email_change',
    'invite',
    'email',
    'sms',
    'totp',
    'phone',
  ),
);
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), nasty, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }), // not JSON at all
  fc.constantFrom(
    '{"email":"a@b.co","email":1}',
    '{',
    '[]',
    'null',
    '"x"',
    '\uFEFF{}',
    '{"a":NaN}',
    '[[[[[[[[[[',
  ),
);
const query = fc
  .dictionary(
    fc.constantFrom('grant_type', 'type', 'token', 'redirect_to', 'apikey', 'x'),
    fc.string({ maxLength: 80 }),
    {
      maxKeys: 3,
    },
  )
  .map((q) => new URLSearchParams(q).toString());

const ENDPOINTS: Array<{ method: string; path: string; auth?: boolean }> = [
  { method: 'POST', path: '/signup' },
  { method: 'POST', path: '/token' },
  { method: 'POST', path: '/token?grant_type=password' },
  { method: 'POST', path: '/token?grant_type=refresh_token' },
  { method: 'POST', path: '/token?grant_type=pkce' },
  { method: 'POST', path: '/verify' },
  { method: 'GET', path: '/verify' },
  { method: 'POST', path: '/recover' },
  { method: 'POST', path: '/resend' },
  { method: 'POST', path: '/otp' },
  { method: 'GET', path: '/user', auth: true },
  { method: 'PUT', path: '/user', auth: true },
  { method: 'POST', path: '/logout', auth: false },
  { method: 'POST', path: '/factors', auth: true },
  { method: 'POST', path: '/factors/00000000-0000-0000-0000-000000000000/challenge', auth: true },
  { method: 'POST', path: '/factors/not-a-uuid/verify', auth: true },
  { method: 'DELETE', path: '/factors/00000000-0000-0000-0000-000000000000', auth: true },
  { method: 'GET', path: '/factors/recovery-codes', auth: true },
  { method: 'POST', path: '/factors/recovery-codes', auth: true },
  { method: 'POST', path: '/factors/recovery-codes/regenerate', auth: true },
  { method: 'POST', path: '/factors/recovery-codes/verify', auth: true },
  { method: 'DELETE', path: '/factors/recovery-codes', auth: true },
  { method: 'GET', path: '/settings' },
  { method: 'POST', path: '/passkeys/authentication/options' },
  { method: 'POST', path: '/passkeys/authentication/verify' },
  { method: 'POST', path: '/passkeys/registration/options', auth: true },
  { method: 'POST', path: '/passkeys/registration/verify', auth: true },
  { method: 'PATCH', path: '/passkeys/00000000-0000-0000-0000-000000000000', auth: true },
  { method: 'DELETE', path: '/passkeys/not-a-uuid', auth: true },
];

async function expectWellFormed(res: Response, what: string) {
  const text = await res.text();
  expect(res.status, `${what} → ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const json = JSON.parse(text) as Record<string, unknown>;
    if (res.headers.get('x-supabase-api-version')) {
      expect(typeof json.code, what).toBe('string');
      expect(typeof json.message, what).toBe('string');
    } else {
      expect(json.code, what).toBe(res.status);
      expect(typeof json.error_code, what).toBe('string');
      expect(typeof json.msg, what).toBe('string');
    }
    expect(text, what).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+/);
  }
}

describe('never 5xx, always the GoTrue error shape', () => {
  for (const ep of ENDPOINTS)
    it(`${ep.method} ${ep.path}`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(
          body,
          query,
          fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
          fc.boolean(),
          fc.option(fc.constantFrom('Bearer nope', 'Bearer eyJhbGciOiJub25lIn0.e30.', 'Basic x', 'Bearer '), {
            nil: undefined,
          }),
          async (payload, qs, contentType, modern, badAuth) => {
            const headers: Record<string, string> = {};
            if (contentType) headers['content-type'] = contentType;
            if (modern) headers['X-Supabase-Api-Version'] = '2024-01-01';
            if (ep.auth) headers.authorization = badAuth ?? `Bearer ${accessToken}`;
            const sep = ep.path.includes('?') ? '&' : '?';
            const url = qs ? `${ep.path}${sep}${qs}` : ep.path;
            const res = await t.api(url, {
              method: ep.method,
              headers,
              ...(ep.method === 'GET' ? {} : { body: payload }),
            });
            await expectWellFormed(res, `${ep.method} ${url} ${payload.slice(0, 120)}`);
          },
        ),
        { numRuns: RUNS },
      );
    });
});
