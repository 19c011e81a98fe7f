import { describe, expect, it } from 'vitest';
import { alternateHref } from '~/components/layout/language-switcher.tsx';
import { localeFromPathname, stripLocale } from '~/config/locales.ts';
import { paths, prerenderPaths, safeNextPath, signInHrefFor, sitemapPaths } from '~/config/paths.ts';
import { siteConfig } from '~/config/site.ts';
import { en } from '~/i18n/en.ts';
import { parseRuntimeConfig, resolveSupabaseUrl, storageKeyFor } from '~/lib/runtime-config.ts';

describe('paths', () => {
  it('builds English hrefs without a prefix', () => {
    expect(paths.home.getHref('en')).toBe('/');
    expect(paths.auth.getHref('en')).toBe('/auth');
    expect(paths.auth.getHref('en', 'signup')).toBe('/auth?mode=signup');
    expect(paths.section.getHref('en', 'products')).toBe('/#products');
  });

  it('builds Arabic hrefs under /ar', () => {
    expect(paths.home.getHref('ar')).toBe('/ar/');
    expect(paths.auth.getHref('ar', 'signup')).toBe('/ar/auth?mode=signup');
    expect(paths.section.getHref('ar', 'team')).toBe('/ar/#team');
  });

  it('reads the locale from the URL prefix', () => {
    expect(localeFromPathname('/')).toBe('en');
    expect(localeFromPathname('/auth')).toBe('en');
    expect(localeFromPathname('/ar')).toBe('ar');
    expect(localeFromPathname('/ar/auth')).toBe('ar');
    expect(localeFromPathname('/arabic')).toBe('en');
    expect(stripLocale('/ar/auth')).toBe('/auth');
    expect(stripLocale('/ar')).toBe('/');
  });

  it("never turns a 404's missing path into a link off the site", () => {
    expect(stripLocale('/ar//evil.example/path')).toBe('/evil.example/path');
    expect(stripLocale('//evil.example')).toBe('/evil.example');
    expect(alternateHref('notFound', 'en', '/ar//evil.example/path', '')).toBe('/evil.example/path');
    expect(alternateHref('notFound', 'ar', '///evil.example', '')).toBe('/ar/evil.example');
    expect(alternateHref('notFound', 'en', '/ar/no-such-page', '')).toBe('/no-such-page');
  });

  it('prerenders home, auth and the 404 page, and lists only real pages in the sitemap', () => {
    expect(prerenderPaths).toEqual(expect.arrayContaining(['/', '/auth', '/404']));
    expect(sitemapPaths).toEqual(expect.arrayContaining(['/', '/auth']));
    expect(sitemapPaths).not.toContain('/404');
  });
});

describe('the account page and the sign-in return path (issue #14)', () => {
  it('prerenders the privacy notice in both editions and lists it in the sitemap', () => {
    expect(paths.privacy.getHref('en')).toBe('/privacy');
    expect(paths.privacy.getHref('ar')).toBe('/ar/privacy');
    expect(prerenderPaths).toEqual(expect.arrayContaining(['/privacy', '/ar/privacy']));
    expect(sitemapPaths).toEqual(expect.arrayContaining(['/privacy', '/ar/privacy']));
  });

  it('prerenders /account in both editions and keeps it out of the sitemap', () => {
    expect(paths.account.getHref('en')).toBe('/account');
    expect(paths.account.getHref('ar')).toBe('/ar/account');
    expect(prerenderPaths).toEqual(expect.arrayContaining(['/account', '/ar/account']));
    expect(sitemapPaths).not.toContain('/account');
    expect(signInHrefFor('ar', '/ar/account')).toBe('/ar/auth?next=%2Far%2Faccount');
  });

  it('returns to a path of this site only; anything else goes home', () => {
    expect(safeNextPath('/account', 'en')).toBe('/account');
    expect(safeNextPath('/ar/account', 'ar')).toBe('/ar/account');
    expect(safeNextPath('/account?tab=1#x', 'en')).toBe('/account?tab=1#x');
    for (const hostile of [
      null,
      '',
      '//evil.example/x',
      '/\\evil.example',
      '/\\/evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      ' /account',
      '/acc\nount',
      '/\tevil',
      `/${'a'.repeat(600)}`,
    ]) {
      expect(safeNextPath(hostile, 'en'), String(hostile)).toBe('/');
      expect(safeNextPath(hostile, 'ar'), String(hostile)).toBe('/ar/');
    }
  });
});

describe('runtime config', () => {
  it('derives the standard supabase-js storage key from the project URL', () => {
    expect(storageKeyFor('http://127.0.0.1:3000')).toBe('sb-127-auth-token');
    expect(storageKeyFor('https://abcd.supabase.co')).toBe('sb-abcd-auth-token');
  });

  it('treats an empty supabaseUrl as the page origin', () => {
    expect(resolveSupabaseUrl({ supabaseUrl: '', anonKey: 'k' }, 'http://x.test')).toBe('http://x.test');
    expect(resolveSupabaseUrl({ supabaseUrl: 'https://p.supabase.co/', anonKey: 'k' }, 'http://x.test')).toBe(
      'https://p.supabase.co',
    );
  });

  it('rejects a malformed runtime-config.json', () => {
    expect(() => parseRuntimeConfig(null)).toThrow();
    expect(() => parseRuntimeConfig({ supabaseUrl: 1, anonKey: 'k' })).toThrow();
    expect(parseRuntimeConfig({ supabaseUrl: '', anonKey: 'k', extra: true })).toEqual({
      supabaseUrl: '',
      anonKey: 'k',
    });
  });
});

describe('message catalog', () => {
  it('keeps the brand name in one config value', () => {
    expect(en.meta.siteName).toBe(siteConfig.name);
    expect(en.footer.copyright).toBe(`© 2025 ${siteConfig.name}. All rights reserved.`);
  });

  it('carries the exact texts of the spec', () => {
    expect(en.auth.signin).toMatchObject({
      heading: 'Welcome Back',
      text: 'Sign in to your account',
      submit: 'Sign In',
      toggle: "Don't have an account? Sign up",
    });
    expect(en.auth.signup).toMatchObject({
      heading: 'Create Account',
      passwordHint: 'Must be at least 6 characters',
      submit: 'Sign Up',
      toggle: 'Already have an account? Sign in',
    });
    expect(en.auth.pending).toBe('Please wait...');
    expect(en.notFound).toMatchObject({ heading: 'Oops! Page not found', returnHome: 'Return to Home' });
    expect(en.hero).toMatchObject({ explore: 'Explore Our Products', contact: 'Contact Us' });
    expect(Object.keys(en.products.modules)).toHaveLength(6);
    expect(Object.keys(en.products.platforms)).toHaveLength(6);
    expect(Object.keys(en.challenge.problems)).toHaveLength(4);
    expect(Object.keys(en.solution.capabilities)).toHaveLength(6);
    expect(Object.keys(en.edge.items)).toHaveLength(4);
    expect(Object.keys(en.team.members)).toHaveLength(2);
  });
});
