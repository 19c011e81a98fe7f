// Unit tests for the pure domain rules: refresh-token reuse, redirects, passwords, emails, errors.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { sha256 } from '../src/crypto/tokens.ts';
import { isValidEmail, normalizeEmail, parseEmail } from '../src/domain/email.ts';
import {
  assertPasswordAcceptable,
  codePointLength,
  passwordProblems,
} from '../src/domain/password-policy.ts';
import { globToRegExp, isRedirectAllowed, resolveRedirect } from '../src/domain/redirect.ts';
import { decideReuse, MAX_CHAIN_WALK } from '../src/domain/refresh.ts';
import { childRefreshToken } from '../src/domain/session-tokens.ts';
import { mergeMetadata } from '../src/domain/user-update.ts';
import { type AuthError, requestedApiVersion } from '../src/errors.ts';
import { jsonNestsDeeperThan } from '../src/http/json-depth.ts';

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
    expect(globToRegExp('https://*.x.com/*').test('https://a.x.com/p')).toBe(true);
    expect(globToRegExp('https://*.x.com/*').test('https://a.b.x.com/p')).toBe(false);
    expect(globToRegExp('https://*.x.com/*').test('https://a.x.com/p/q')).toBe(false);
    expect(globToRegExp('https://**.x.com/**').test('https://a.b.x.com/p/q')).toBe(true);
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
