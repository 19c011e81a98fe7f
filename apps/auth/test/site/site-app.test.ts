import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteApp } from '../../src/site/site-app.ts';

const inlineScript = 'window.__boot = 1;';
const moduleScript = 'window.__module = 1;';
const jsonLd = '{"@context":"https://schema.org","@type":"Organization"}';
let dir: string;
let app: ReturnType<typeof createSiteApp>;

function put(path: string, content: string, { compressed = false } = {}) {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  if (compressed) {
    writeFileSync(`${full}.br`, brotliCompressSync(content));
    writeFileSync(`${full}.gz`, gzipSync(content));
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'site-app-'));
  put('index.html', `<!doctype html><title>home</title><script>${inlineScript}</script>`, {
    compressed: true,
  });
  put(
    'auth/index.html',
    `<!doctype html><title>auth</title><script type="application/ld+json">${jsonLd}</script><script type="module">${moduleScript}</script>`,
  );
  put('404.html', '<!doctype html><title>not found en</title>');
  put('ar/index.html', '<!doctype html><title>home ar</title>');
  put('ar/404.html', '<!doctype html><title>not found ar</title>');
  put('assets/app-abc123.js', 'console.log(1)', { compressed: true });
  put('robots.txt', 'User-agent: *');
  app = createSiteApp({
    dir,
    runtimeConfig: { supabaseUrl: '', anonKey: 'anon-test-key' },
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('site app', () => {
  it('serves the home page with revalidation and a CSP that allows exactly its inline script', async () => {
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const hash = createHash('sha256').update(inlineScript).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('<title>home</title>');
  });

  it('hashes every script a browser may execute but not JSON data blocks (never executed)', async () => {
    const res = await app.request('/auth');
    const csp = res.headers.get('content-security-policy') ?? '';
    const sha = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`;
    expect(csp).toContain(`script-src 'self' ${sha(moduleScript)};`);
    expect(csp).not.toContain(sha(jsonLd));
  });

  it('sends X-Frame-Options only where no CSP frame-ancestors covers the response', async () => {
    const page = await app.request('/');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBeNull();
    for (const path of ['/runtime-config.json', '/robots.txt', '/assets/app-abc123.js']) {
      const res = await app.request(path);
      expect(res.headers.get('content-security-policy'), path).toBeNull();
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
    }
  });

  it('resolves routes to their prerendered index.html, with and without a trailing slash', async () => {
    for (const path of ['/auth', '/auth/']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain('<title>auth</title>');
    }
  });

  it('sends the brotli variant when the client accepts it, gzip otherwise, identity last', async () => {
    const br = await app.request('/', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    const gz = await app.request('/', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const refused = await app.request('/', { headers: { 'Accept-Encoding': 'br;q=0, gzip;q=0' } });
    expect(refused.headers.get('content-encoding')).toBeNull();
    expect(await refused.text()).toContain('<title>home</title>');
  });

  it('caches hashed assets for a year and everything else briefly', async () => {
    const asset = await app.request('/assets/app-abc123.js');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const robots = await app.request('/robots.txt');
    expect(robots.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('answers unknown paths with the locale 404 page and status 404', async () => {
    const en = await app.request('/no/such/page');
    expect(en.status).toBe(404);
    expect(await en.text()).toContain('not found en');
    const ar = await app.request('/ar/no-such-page');
    expect(ar.status).toBe(404);
    expect(await ar.text()).toContain('not found ar');
    const direct = await app.request('/404.html');
    expect(direct.status).toBe(404);
  });

  it('serves pages at their clean URLs only: a page file named directly is a 404', async () => {
    for (const [path, page] of [
      ['/index.html', 'not found en'],
      ['/auth/index.html', 'not found en'],
      ['/ar/index.html', 'not found ar'],
    ]) {
      const res = await app.request(path as string);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain(page);
    }
    expect((await app.request('/auth')).status).toBe(200);
    expect((await app.request('/ar/')).status).toBe(200);
  });

  it('never serves files outside the build, whatever the encoding of the path', async () => {
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fetc/passwd',
      '/%E0%A4%A',
    ]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(404);
    }
  });

  it('answers conditional requests with 304', async () => {
    const first = await app.request('/auth');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const second = await app.request('/auth', { headers: { 'If-None-Match': etag! } });
    expect(second.status).toBe(304);
  });

  it('publishes the runtime configuration so the anon key changes without a rebuild', async () => {
    const res = await app.request('/runtime-config.json');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.json()).toEqual({ supabaseUrl: '', anonKey: 'anon-test-key' });
  });

  it('adds a hosted auth origin to connect-src when the site is pointed elsewhere', async () => {
    const hosted = createSiteApp({
      dir,
      runtimeConfig: { supabaseUrl: 'https://abcd.supabase.co', anonKey: 'k' },
      hsts: 'max-age=63072000; includeSubDomains',
    });
    const res = await hosted.request('/');
    expect(res.headers.get('content-security-policy')).toContain(
      "connect-src 'self' https://abcd.supabase.co",
    );
    expect(res.headers.get('strict-transport-security')).toContain('max-age=');
  });

  it("lets the CAPTCHA provider's script and frame in only when CAPTCHA is on (issue #27)", async () => {
    const off = (await app.request('/auth')).headers.get('content-security-policy') ?? '';
    expect(off).not.toMatch(/cloudflare|hcaptcha|frame-src/);
    const turnstile = createSiteApp({
      dir,
      runtimeConfig: { supabaseUrl: '', anonKey: 'k' },
      captchaProvider: 'turnstile',
    });
    const t = (await turnstile.request('/')).headers.get('content-security-policy') ?? '';
    expect(t).toMatch(/script-src 'self' 'sha256-[^;]+ https:\/\/challenges\.cloudflare\.com;/);
    expect(t).toContain('frame-src https://challenges.cloudflare.com');
    expect(t).toContain("connect-src 'self';");
    expect(t).toContain("frame-ancestors 'none'");
    const hcaptcha = createSiteApp({
      dir,
      runtimeConfig: { supabaseUrl: '', anonKey: 'k' },
      captchaProvider: 'hcaptcha',
    });
    const h = (await hcaptcha.request('/auth')).headers.get('content-security-policy') ?? '';
    for (const directive of ['script-src', 'frame-src', 'style-src', 'connect-src'])
      expect(h).toMatch(new RegExp(`${directive} [^;]*https://\\*\\.hcaptcha\\.com`));
  });

  it('refuses other methods and answers HEAD without a body', async () => {
    const post = await app.request('/', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await app.request('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
