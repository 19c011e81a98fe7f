// Issue #25: HSTS (max-age, includeSubDomains) and the CORS origins are settings, with the values
// that used to be hard-coded as defaults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

describe('HSTS settings', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ SITE_URL: 'https://namaa.example' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const hsts = async () => (await fetch(`${t.url}/auth/v1/health`)).headers.get('strict-transport-security');

  it('default: two years with includeSubDomains (the previous fixed value)', async () => {
    expect(await hsts()).toBe('max-age=63072000; includeSubDomains');
  });

  it('HSTS_MAX_AGE and HSTS_INCLUDE_SUBDOMAINS change it; HSTS_MAX_AGE=0 sends none', async () => {
    const before = { ...t.config };
    try {
      Object.assign(t.config, loadConfig({ HSTS_MAX_AGE: '300', HSTS_INCLUDE_SUBDOMAINS: 'false' }), {
        SITE_URL: 'https://namaa.example',
      });
      expect(await hsts()).toBe('max-age=300');
      t.config.HSTS_MAX_AGE = 0;
      expect(await hsts()).toBeNull();
    } finally {
      Object.assign(t.config, before);
    }
  });

  it('refuses a negative or non-numeric max-age', () => {
    expect(() => loadConfig({ HSTS_MAX_AGE: '-1' })).toThrow(/HSTS_MAX_AGE/);
    expect(() => loadConfig({ HSTS_MAX_AGE: 'forever' })).toThrow(/HSTS_MAX_AGE/);
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ CORS_ALLOWED_ORIGINS: 'https://app.example, https://admin.example/' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const preflight = (origin: string) =>
    fetch(`${t.url}/auth/v1/token?grant_type=password`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
    });

  it('a listed origin is allowed (by name, not *), and the answer varies by Origin', async () => {
    for (const origin of ['https://app.example', 'https://admin.example']) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('vary')).toMatch(/Origin/);
    }
    const get = await t.api('/settings', { headers: { Origin: 'https://app.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('another origin gets no Access-Control-Allow-Origin', async () => {
    const res = await preflight('https://evil.example');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await t.api('/settings', { headers: { Origin: 'https://evil.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('default * (any origin), and bad entries are refused at start-up', () => {
    expect(loadConfig({}).CORS_ALLOWED_ORIGINS).toEqual(['*']);
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example/path' })).toThrow(
      /CORS_ALLOWED_ORIGINS: "https:\/\/app.example\/path" is not an origin/,
    );
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: 'app.example' })).toThrow(/is not an origin/);
    expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: '*,https://app.example' })).toThrow(/\* alone/);
  });
});
