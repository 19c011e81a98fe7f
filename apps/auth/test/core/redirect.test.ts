// Unit tests for redirect validation (core/redirect.ts): the allow-list globs, loopback, SITE_URL fallback.
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/core/glob-match.ts';
import { isRedirectAllowed, resolveRedirect } from '../../src/core/redirect.ts';

describe('redirect validation', () => {
  const policy = {
    siteUrl: 'https://namaa.example',
    allowList: ['https://*.namaa.example/**', 'myapp://**'],
    allowLoopback: true,
  };
  it.each([
    ['https://namaa.example/welcome', true],
    ['https://namaa.example', true],
    ['https://app.namaa.example/a/b?c=d', true],
    ['myapp://callback', true],
    ['http://127.0.0.1:5173/x', true],
    ['http://[::1]:8080/', true],
    ['http://namaa.example/', false],
    ['https://namaa.example:444/', false],
    ['https://evil.example/', false],
    ['https://namaa.example.evil.example/', false],
    ['https://namaa.example@evil.example/', false],
    ['//evil.example', false],
    ['https:evil.example', false],
    ['javascript:alert(1)', false],
    ['data:text/html,hi', false],
    ['https://a.b.namaa.example/', false],
    ['https://namaa.example/\r\nSet-Cookie: x', false],
    ['http://3232235777/', false],
  ])('%s → %s', (url, allowed) => {
    expect(isRedirectAllowed(url, policy)).toBe(allowed);
  });

  it('allows loopback only when enabled (development)', () => {
    expect(isRedirectAllowed('http://127.0.0.1:3000/', { ...policy, allowLoopback: false })).toBe(false);
    expect(
      isRedirectAllowed('http://localhost:9999/', {
        ...policy,
        siteUrl: 'http://localhost:3000',
        allowLoopback: false,
      }),
    ).toBe(true);
  });

  it('falls back to SITE_URL and says so', () => {
    expect(resolveRedirect('https://evil.example', policy)).toEqual({
      url: 'https://namaa.example',
      fellBack: true,
    });
    expect(resolveRedirect(undefined, policy)).toEqual({ url: 'https://namaa.example', fellBack: false });
  });

  it('globs: * stays within a label or segment, ** crosses them', () => {
    expect(compileGlob('https://*.x.com/*')('https://a.x.com/p')).toBe(true);
    expect(compileGlob('https://*.x.com/*')('https://a.b.x.com/p')).toBe(false);
    expect(compileGlob('https://*.x.com/*')('https://a.x.com/p/q')).toBe(false);
    expect(compileGlob('https://**.x.com/**')('https://a.b.x.com/p/q')).toBe(true);
    // `*` may match nothing, `?` exactly one non-separator, `**` anything (also nothing).
    expect(compileGlob('/cb/*')('/cb/')).toBe(true);
    expect(compileGlob('a?c')('abc')).toBe(true);
    expect(compileGlob('a?c')('a.c')).toBe(false);
    expect(compileGlob('a?c')('ac')).toBe(false);
    expect(compileGlob('**')('')).toBe(true);
    expect(compileGlob('a**b')('a/./b')).toBe(true);
    expect(compileGlob('*-*-*')('a-b-c')).toBe(true);
    expect(compileGlob('*-*-*')('a-b')).toBe(false);
    // Regex metacharacters in a glob are literal.
    expect(compileGlob('a+b(c)')('a+b(c)')).toBe(true);
    expect(compileGlob('a+b(c)')('aab(c)')).toBe(false);
    // The host part's separators are `.` and the port colon.
    expect(compileGlob('*.x.com', '.:')('a.x.com')).toBe(true);
    expect(compileGlob('*.x.com', '.:')('a:1.x.com')).toBe(false);
  });

  // Each of these used to pass the glob on its raw text while the browser lands on another host.
  it.each([
    ['https://evil%2Ecom?.namaa.example/', 'percent-encoded dot in the host'],
    ['https://evil%E3%80%82com?.namaa.example/', 'percent-encoded ideographic full stop'],
    ['https://evil\u3002com?.namaa.example/', 'ideographic full stop (U+3002)'],
    ['https://evil\uff0ecom?.namaa.example/', 'fullwidth full stop (U+FF0E)'],
    ['https://16909060?.namaa.example/', 'decimal IPv4 (1.2.3.4)'],
    ['https://0x1020304?.namaa.example/', 'hex IPv4 (1.2.3.4)'],
    ['https://evil.com\\@x.namaa.example/', 'backslash before userinfo'],
    ['https://x.namaa.example.evil.com/', 'allowed name as a prefix of another domain'],
    ['https://evil.com#.namaa.example/', 'suffix in the fragment'],
    ['https://evil.com/.namaa.example/', 'suffix in the path'],
    ['https://evil.com?.namaa.example/', 'suffix in the query'],
    ['https://a.namaa.example@evil.com/', 'allowed name as userinfo'],
    ['https://evil\u3002com.namaa.example/', 'ideographic dot adds a label under the wildcard'],
  ])('allow-list bypass rejected: %s (%s)', (url) => {
    expect(isRedirectAllowed(url, policy)).toBe(false);
    expect(resolveRedirect(url, policy)).toEqual({ url: 'https://namaa.example', fellBack: true });
  });

  it('hands back the normalised URL that was checked, not the raw input', () => {
    expect(resolveRedirect('https://APP.Namaa.Example/Cb', policy)).toEqual({
      url: 'https://app.namaa.example/Cb',
      fellBack: false,
    });
    expect(resolveRedirect('https://app.namaa.example:443/a/../b/%2e%2e/c', policy).url).toBe(
      'https://app.namaa.example/c',
    );
    expect(resolveRedirect('https://app.namaa.example/path?x=1', policy)).toEqual({
      url: 'https://app.namaa.example/path?x=1',
      fellBack: false,
    });
  });

  // Decision: an IDN label is one DNS label, so `*` may match it; the check and the redirect both use
  // the punycode form the browser resolves. A Unicode dot in it is a label separator, not part of it.
  it('IDN hosts under a wildcard: allowed as punycode, one label only', () => {
    expect(resolveRedirect('https://b\u00fccher.namaa.example/x', policy)).toEqual({
      url: 'https://xn--bcher-kva.namaa.example/x',
      fellBack: false,
    });
    expect(isRedirectAllowed('https://xn--bcher-kva.namaa.example/x', policy)).toBe(true);
    expect(
      isRedirectAllowed('https://shop.xn--bcher-kva.example/a', {
        ...policy,
        allowList: ['https://*.b\u00fccher.example/**'],
      }),
    ).toBe(true);
  });

  it('path globs: ** crosses segments and the query, * stays in one segment', () => {
    const paths = {
      ...policy,
      allowList: ['https://app.namaa.example/cb/*', 'https://docs.namaa.example/**'],
    };
    expect(isRedirectAllowed('https://app.namaa.example/cb/done', paths)).toBe(true);
    expect(isRedirectAllowed('https://app.namaa.example/cb/done?x=1', paths)).toBe(true);
    expect(isRedirectAllowed('https://app.namaa.example/cb/a/b', paths)).toBe(false);
    expect(isRedirectAllowed('https://docs.namaa.example/a/b/c?d=e', paths)).toBe(true);
    expect(isRedirectAllowed('https://docs.namaa.example', paths)).toBe(true);
    expect(isRedirectAllowed('https://docs.namaa.example.evil.com/a', paths)).toBe(false);
  });

  it('host wildcards never leave the host, ** included', () => {
    const any = { ...policy, allowList: ['https://**.namaa.example/**', 'http://localhost:*/**'] };
    expect(isRedirectAllowed('https://a.b.namaa.example/x', any)).toBe(true);
    expect(isRedirectAllowed('https://evil.com/?.namaa.example/', any)).toBe(false);
    expect(isRedirectAllowed('https://evil.com/x.namaa.example/', any)).toBe(false);
    expect(isRedirectAllowed('http://localhost:3000/cb', any)).toBe(true);
    expect(isRedirectAllowed('http://localhost:3000.evil.com/cb', any)).toBe(false);
  });

  it('custom app schemes still work through the allow list; script schemes never do', () => {
    const apps = { ...policy, allowList: ['myapp://**', 'com.example.app://login-callback', '**'] };
    expect(resolveRedirect('myapp://callback/x?y=1', apps).url).toBe('myapp://callback/x?y=1');
    expect(isRedirectAllowed('com.example.app://login-callback', apps)).toBe(true);
    expect(isRedirectAllowed('javascript:alert(1)', apps)).toBe(false);
    expect(isRedirectAllowed('data:text/html,hi', apps)).toBe(false);
    expect(isRedirectAllowed('file:///etc/passwd', apps)).toBe(false);
    // A scheme-less entry has no host part, so it never vouches for a URL that has a host.
    expect(isRedirectAllowed('https://evil.example/', apps)).toBe(false);
  });
});
