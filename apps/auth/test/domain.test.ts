// Unit tests for the pure domain rules: refresh-token reuse, redirects, passwords, emails, errors.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { isValidEmail, normalizeEmail, parseEmail } from '../src/core/email.ts';
import { compileGlob } from '../src/core/glob-match.ts';
import { jsonTextProblem } from '../src/core/http/json-depth.ts';
import { childRefreshToken } from '../src/core/issue-session.ts';
import { assertPasswordAcceptable, codePointLength, passwordProblems } from '../src/core/password-policy.ts';
import { isRedirectAllowed, resolveRedirect } from '../src/core/redirect.ts';
import { sha256 } from '../src/crypto/tokens.ts';
import { type AuthError, requestedApiVersion } from '../src/errors.ts';
import { decideReuse, MAX_CHAIN_WALK } from '../src/features/session/refresh.ts';
import { mergeMetadata } from '../src/features/user/user-update.ts';

const jsonNestsDeeperThan = (text: string, limit: number) => jsonTextProblem(text, limit) === 'too_deep';

describe('refresh-token reuse rules', () => {
  const secret = 'test-secret';
  const chain = (start: string, n: number) => {
    const out = [start];
    for (let i = 0; i < n; i++) out.push(childRefreshToken(secret, out[out.length - 1] as string));
    return out;
  };
  const now = new Date('2025-01-01T00:00:10Z');
  const base = { secret, now, reuseIntervalSec: 10 };

  it('returns the active token to its parent, however long ago the parent was rotated', () => {
    const [t0, t1] = chain('start-token', 1) as [string, string];
    const d = decideReuse({
      ...base,
      presented: t0,
      activeHash: sha256(t1),
      revokedAt: new Date('2020-01-01'),
    });
    expect(d).toEqual({ kind: 'return-active', token: t1, depth: 1 });
  });

  it('returns the active token to an older ancestor only within the reuse interval', () => {
    const c = chain('start-token', 3);
    const active = sha256(c[3] as string);
    const inside = decideReuse({
      ...base,
      presented: c[0] as string,
      activeHash: active,
      revokedAt: new Date('2025-01-01T00:00:05Z'),
    });
    expect(inside).toEqual({ kind: 'return-active', token: c[3], depth: 3 });
    const outside = decideReuse({
      ...base,
      presented: c[0] as string,
      activeHash: active,
      revokedAt: new Date('2024-12-31T23:59:00Z'),
    });
    expect(outside).toEqual({ kind: 'revoke-family' });
  });

  it('revokes the family for a token that is not an ancestor, or too far back', () => {
    const other = chain('another', 1);
    expect(
      decideReuse({
        ...base,
        presented: 'unrelated-token',
        activeHash: sha256(other[1] as string),
        revokedAt: now,
      }),
    ).toEqual({ kind: 'revoke-family' });
    const long = chain('start', MAX_CHAIN_WALK + 1);
    expect(
      decideReuse({
        ...base,
        presented: long[0] as string,
        activeHash: sha256(long.at(-1) as string),
        revokedAt: now,
      }),
    ).toEqual({ kind: 'revoke-family' });
  });

  it('reports a session without an active token', () => {
    expect(decideReuse({ ...base, presented: 'x', activeHash: undefined, revokedAt: now })).toEqual({
      kind: 'session-gone',
    });
  });

  it('derives children that depend on the server secret', () => {
    expect(childRefreshToken('a', 'parent')).not.toBe(childRefreshToken('b', 'parent'));
    expect(childRefreshToken('a', 'parent')).toBe(childRefreshToken('a', 'parent'));
  });
});

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

describe('password rules', () => {
  const policy = { minLength: 6, maxLength: 100 };
  it('counts code points, not UTF-16 units or bytes', () => {
    expect(codePointLength('😀😀😀')).toBe(3);
    expect(codePointLength('نماء')).toBe(4);
    expect(passwordProblems('😀😀😀😀😀', policy).reasons).toEqual(['length']);
    expect(passwordProblems('😀😀😀😀😀😀', policy).reasons).toEqual([]);
  });
  it('accepts 6 and 100, refuses 5 (weak_password) and 101 (never truncated)', () => {
    expect(() => assertPasswordAcceptable('a'.repeat(6), policy)).not.toThrow();
    expect(() => assertPasswordAcceptable('a'.repeat(100), policy)).not.toThrow();
    const weak = (() => {
      try {
        assertPasswordAcceptable('a'.repeat(5), policy);
      } catch (e) {
        return e as AuthError;
      }
    })();
    expect(weak?.code).toBe('weak_password');
    expect(weak?.extra).toEqual({ weak_password: { reasons: ['length'] } });
    expect(() => assertPasswordAcceptable('a'.repeat(101), policy)).toThrow(/longer than 100/);
  });
  it('runs pluggable checks (the common-password hook)', () => {
    const check = (p: string) =>
      p === 'password' ? { reason: 'pwned', message: 'Password is too common.' } : undefined;
    expect(passwordProblems('password', policy, [check])).toEqual({
      reasons: ['pwned'],
      messages: ['Password is too common.'],
    });
  });
});

describe('email normalisation', () => {
  it('lower-cases without locale rules and trims', () => {
    expect(normalizeEmail('  Sara@Example.COM ')).toBe('sara@example.com');
    expect(normalizeEmail('I@X.COM')).toBe('i@x.com');
  });
  it.each([
    ['a@b.co', true],
    ['first.last+tag@sub.example.com', true],
    ['no-at-sign', false],
    ['a@b', false],
    ['.a@b.com', false],
    ['a..b@c.com', false],
    ['ünï@exämple.com', false],
    [`${'a'.repeat(65)}@b.com`, false],
    [`a@${'b'.repeat(250)}.com`, false],
  ])('%s valid=%s', (email, valid) => {
    expect(isValidEmail(email)).toBe(valid);
  });
  it('throws GoTrue validation errors', () => {
    expect(() => parseEmail('')).toThrow('An email address is required');
    expect(() => parseEmail('bad')).toThrow('Unable to validate email address: invalid format');
  });
});

describe('metadata merge', () => {
  it('sets, overwrites, and deletes keys set to null', () => {
    expect(mergeMetadata({ a: 1, b: 2 }, { b: 3, c: 4, a: null })).toEqual({ b: 3, c: 4 });
  });
});

describe('errors and config', () => {
  it('accepts only API versions that are dates from 2024-01-01', () => {
    expect(requestedApiVersion('2024-01-01')).toBe('2024-01-01');
    expect(requestedApiVersion('2023-12-31')).toBeUndefined();
    expect(requestedApiVersion('banana')).toBeUndefined();
    expect(requestedApiVersion(undefined)).toBeUndefined();
  });

  it('has the runtime-contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      SITE_URL: 'http://localhost:3000',
      ANON_KEY: 'sb_publishable_namaa_development_key',
      JWT_EXPIRY: 3600,
      MAILER_AUTOCONFIRM: false,
      REFRESH_TOKEN_REUSE_INTERVAL: 10,
      PASSWORD_MIN_LENGTH: 6,
      MAILER_OTP_EXP: 3600,
      MAIL_FROM: 'no-reply@localhost',
    });
    expect(c.DATA_DIR.endsWith('/data')).toBe(true);
    expect(loadConfig({ PORT: '8080' }).SITE_URL).toBe('http://localhost:8080');
  });

  it('refuses unsafe production settings with a clear message', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SMTP_URL is unset/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://x', SITE_URL: 'http://namaa.example' }),
    ).toThrow(/SITE_URL must be https/);
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        SMTP_URL: 'smtp://x',
        SITE_URL: 'https://namaa.example',
        SERVICE_ROLE_KEY: 'short',
      }),
    ).toThrow(/SERVICE_ROLE_KEY/);
    expect(
      loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://x', SITE_URL: 'https://namaa.example' })
        .production,
    ).toBe(true);
    expect(() => loadConfig({ MAILER_AUTOCONFIRM: 'maybe' })).toThrow(/MAILER_AUTOCONFIRM/);
    expect(() => loadConfig({ PASSWORD_MIN_LENGTH: '3' })).toThrow(/PASSWORD_MIN_LENGTH/);
  });
});

describe('JSON nesting limit', () => {
  it('counts objects and arrays, not brackets inside strings or escaped quotes', () => {
    expect(jsonNestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":"[[[[{{{{"}', 1)).toBe(false);
    // An escaped quote does not end the string: the brackets after it are still text.
    expect(jsonNestsDeeperThan(String.raw`{"a":"\"[[[","b":1}`, 1)).toBe(false);
    // An escaped backslash does not escape the closing quote: counting resumes after it.
    expect(jsonNestsDeeperThan(String.raw`{"a":"\\","b":[[1]]}`, 2)).toBe(true);
    expect(jsonNestsDeeperThan(String.raw`{"a":"\\","b":[1]}`, 2)).toBe(false);
    expect(jsonNestsDeeperThan('[[],[],[]]', 2)).toBe(false); // siblings do not add up
    expect(jsonNestsDeeperThan(`${'['.repeat(100_000)}`, 64)).toBe(true); // no recursion, no overflow
  });
});
