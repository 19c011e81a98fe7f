// CAPTCHA (issue #27) against a local fake `siteverify` endpoint (hCaptcha's and Turnstile's form
// API), through supabase-js's `captchaToken`: GoTrue's endpoints refuse a missing or rejected token
// with `400 captcha_failed`, accept a valid one, and leave refresh and the service role alone.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { startServer } from '../../../src/run-service.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Captcha-Suite-Pass-4410';
const SECRET = 'captcha-test-secret';
const SITE_KEY = '0x4AAAAAAA-test-site-key';
let verifier: { url: string; forms: URLSearchParams[]; down: boolean; close(): Promise<void> };
let t: TestServer;

async function startVerifier() {
  const forms: URLSearchParams[] = [];
  const state = { down: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      forms.push(form);
      if (state.down) {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
        return;
      }
      const ok = form.get('secret') === SECRET && form.get('response') === 'good-token';
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify(
            ok ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] },
          ),
        );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    forms,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

beforeAll(async () => {
  verifier = await startVerifier();
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
    SECURITY_CAPTCHA_ENABLED: 'true',
    SECURITY_CAPTCHA_PROVIDER: 'turnstile',
    SECURITY_CAPTCHA_SECRET: SECRET,
    SECURITY_CAPTCHA_VERIFY_URL: verifier.url,
    SECURITY_CAPTCHA_SITE_KEY: SITE_KEY,
  });
});
afterAll(async () => {
  await t?.close();
  await verifier?.close();
});

describe('SECURITY_CAPTCHA_ENABLED', () => {
  it('refuses to serve the site with CAPTCHA on and no site key: no form could get a token', async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: 'memory://',
      SECURITY_CAPTCHA_ENABLED: 'true',
      SECURITY_CAPTCHA_SECRET: SECRET,
    });
    await expect(startServer(config, { site: true, logger: createLogger('silent') })).rejects.toThrow(
      /^SECURITY_CAPTCHA_SITE_KEY: CAPTCHA is on and the site is served/,
    );
  });

  it('GET /settings tells the site the provider and the public site key, never the secret', async () => {
    const settings = await (await t.api('/settings')).json();
    expect(settings.captcha).toEqual({ provider: 'turnstile', site_key: SITE_KEY });
    expect(JSON.stringify(settings)).not.toContain(SECRET);
  });

  it('sign-up: no token and a rejected token are captcha_failed; a valid one passes', async () => {
    const email = uniqueEmail('captcha');
    const none = await t.client().auth.signUp({ email, password: PASSWORD });
    expect(none.error).toMatchObject({
      status: 400,
      code: 'captcha_failed',
      message: 'captcha protection: request disallowed (no captcha_token found)',
    });
    const bad = await t
      .client()
      .auth.signUp({ email, password: PASSWORD, options: { captchaToken: 'bad-token' } });
    expect(bad.error).toMatchObject({
      status: 400,
      code: 'captcha_failed',
      message: 'captcha protection: request disallowed (invalid-input-response)',
    });
    const good = await t
      .client()
      .auth.signUp({ email, password: PASSWORD, options: { captchaToken: 'good-token' } });
    expect(good.error).toBeNull();
    const form = verifier.forms.at(-1);
    expect(form?.get('secret')).toBe(SECRET);
    expect(form?.get('remoteip')).toBe('127.0.0.1');
  });

  it('password sign-in, recover, OTP and anonymous sign-in are checked; refresh is not', async () => {
    const email = uniqueEmail('captcha');
    const sb = t.client();
    await sb.auth.signUp({ email, password: PASSWORD, options: { captchaToken: 'good-token' } });
    const c = t.client();
    expect((await c.auth.signInWithPassword({ email, password: PASSWORD })).error?.code).toBe(
      'captcha_failed',
    );
    const signedIn = await c.auth.signInWithPassword({
      email,
      password: PASSWORD,
      options: { captchaToken: 'good-token' },
    });
    expect(signedIn.error).toBeNull();
    expect((await c.auth.resetPasswordForEmail(email)).error?.code).toBe('captcha_failed');
    expect((await c.auth.resetPasswordForEmail(email, { captchaToken: 'good-token' })).error).toBeNull();
    expect((await c.auth.signInWithOtp({ email })).error?.code).toBe('captcha_failed');
    expect((await t.client().auth.signInAnonymously()).error?.code).toBe('captcha_failed');
    expect(
      (await t.client().auth.signInAnonymously({ options: { captchaToken: 'good-token' } })).error,
    ).toBeNull();
    const before = verifier.forms.length;
    expect((await c.auth.refreshSession()).error).toBeNull();
    expect(verifier.forms.length).toBe(before);
  });

  it('a provider that fails to answer JSON: 502, never a 500; hostile tokens stay 4xx', async () => {
    verifier.down = true;
    try {
      const { error } = await t.client().auth.signUp({
        email: uniqueEmail('captcha'),
        password: PASSWORD,
        options: { captchaToken: 'good-token' },
      });
      expect(error?.status).toBe(502);
    } finally {
      verifier.down = false;
    }
    for (const token of [12, { a: 1 }, 'x'.repeat(5000), '   ']) {
      const res = await t.api('/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: uniqueEmail('c'),
          password: PASSWORD,
          gotrue_meta_security: { captcha_token: token },
        }),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-sb-error-code')).toBe('captcha_failed');
    }
  });
});
