// Security headers on the auth API (issue 6): nosniff, Referrer-Policy, frame protection, a strict
// CSP on every answer (errors included), HSTS only when the public origin is https, and no cookies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
});
afterAll(async () => {
  await t?.close();
});

function expectApiHeaders(res: Response) {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
  expect(res.headers.get('set-cookie')).toBeNull();
}

describe('API security headers', () => {
  it('are on successes, client errors, 404s and rate-limit/validation failures alike', async () => {
    const responses = [
      await fetch(`${t.url}/auth/v1/health`),
      await t.api('/settings'),
      await t.api('/signup', {
        method: 'POST',
        body: JSON.stringify({ email: uniqueEmail(), password: 'correct horse' }),
      }),
      await t.api('/signup', { method: 'POST', body: '{bad json' }),
      await fetch(`${t.url}/auth/v1/user`), // no apikey: 401
      await t.api('/user'), // no bearer: 401
      await t.api('/no-such-route'),
      await t.api('/token?grant_type=password', {
        method: 'POST',
        body: JSON.stringify({ email: uniqueEmail(), password: 'wrong-pass' }),
      }),
      await fetch(`${t.url}/auth/v1/verify?type=signup&token=nope`, { redirect: 'manual' }),
      await fetch(`${t.url}/auth/v1/signup`, { method: 'OPTIONS', headers: { Origin: 'https://x.example' } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 400, 401, 401, 404, 400, 303, 204]);
    for (const r of responses) expectApiHeaders(r);
    // No caching of anything the API answers.
    expect(responses[2]?.headers.get('cache-control')).toBe('no-store');
  });

  it('send HSTS only when SITE_URL is https', async () => {
    const plain = await fetch(`${t.url}/auth/v1/health`);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    const before = t.config.SITE_URL;
    t.config.SITE_URL = 'https://namaa.example';
    try {
      const secure = await fetch(`${t.url}/auth/v1/health`);
      expect(secure.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
      const error = await t.api('/nope');
      expect(error.headers.get('strict-transport-security')).toMatch(/max-age=63072000/);
    } finally {
      t.config.SITE_URL = before;
    }
  });

  it('never leak a stack trace or internal detail in an error body', async () => {
    const res = await t.api('/token?grant_type=password', { method: 'POST', body: '[1,2,' });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+/);
  });
});
