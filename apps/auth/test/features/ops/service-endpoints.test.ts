// The service endpoints: health, settings, JWKS and the OpenAPI document; the error shape chosen by
// the API-version header; the development mailbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('service endpoints', () => {
  it('serves health, settings, jwks and the OpenAPI document', async () => {
    const health = await fetch(`${t.url}/auth/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ name: 'GoTrue' });
    const settings = await (await t.api('/settings')).json();
    // CAPTCHA is off by default: no `captcha` field, so the site never loads a provider's script.
    expect(settings).not.toHaveProperty('captcha');
    expect(settings).toMatchObject({
      external: { email: true },
      mailer_autoconfirm: false,
      mailer_secure_email_change_enabled: true,
      disable_signup: false,
      // Off by default (PASSKEY_ENABLED, SMS_AUTOCONFIRM); outside production SMS goes to the dev mailbox.
      passkeys_enabled: false,
      phone_autoconfirm: false,
      sms_provider: 'dev',
    });
    const jwks = await fetch(`${t.url}/auth/v1/.well-known/jwks.json`);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=600');
    const { keys } = await jwks.json();
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', key_ops: ['verify'] });
    expect(keys[0].d).toBeUndefined();
    const doc = await (await fetch(`${t.url}/auth/v1/openapi.json`)).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/signup', '/token', '/verify', '/user', '/logout', '/recover', '/resend']),
    );
  });

  it('answers errors in the new shape with the version header echoed and exposed, legacy otherwise', async () => {
    const body = JSON.stringify({ email: uniqueEmail('x'), password: 'nope-nope' });
    const modern = await t.api('/token?grant_type=password', {
      method: 'POST',
      body,
      headers: { 'X-Supabase-Api-Version': '2024-01-01', origin: 'https://elsewhere.example' },
    });
    expect(modern.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    // Exposed to browsers: only headers some route sends (X-Total-Count and Link: the admin user list).
    expect(
      modern.headers
        .get('access-control-expose-headers')
        ?.split(',')
        .map((h) => h.trim()),
    ).toEqual(['X-Supabase-Api-Version', 'X-Total-Count', 'Link', 'Retry-After', 'X-Request-Id']);
    expect(await modern.json()).toEqual({
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    });
    const legacy = await t.api('/token?grant_type=password', { method: 'POST', body });
    expect(await legacy.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    });
    const preflight = await fetch(`${t.url}/auth/v1/token`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'apikey,authorization,content-type,x-client-info,x-supabase-api-version',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/x-supabase-api-version/i);
  });

  it('stores outgoing mail in the development mailbox when SMTP_URL is unset', async () => {
    const dev = await startTestServer({ SMTP_URL: '' });
    try {
      const email = uniqueEmail('devbox');
      await dev.client().auth.signUp({ email, password: 'secret-pass' });
      await dev.server.deps.mail.idle();
      const list = await (await fetch(`${dev.url}/auth/v1/_dev/mailbox.json?to=${email}`)).json();
      expect(list).toHaveLength(1);
      expect(list[0].text).toContain('/auth/v1/verify?token=');
      const page = await fetch(`${dev.url}/auth/v1/_dev/mailbox`);
      expect(await page.text()).toContain(email);
    } finally {
      await dev.close();
    }
  });
});
