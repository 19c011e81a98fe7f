// The language of a message (core/mail/locale.ts): the request's page, the client's data.locale, the
// language remembered in user_metadata.locale, English.
import { describe, expect, it } from 'vitest';
import {
  localeFromRedirect,
  mailLocaleFor,
  parseLocale,
  signupLocale,
} from '../../../src/core/mail/locale.ts';

describe('the language rule (core/mail/locale.ts)', () => {
  const site = 'https://namaa.example';
  it('reads the page of redirect_to, and nothing from the bare default or another app', () => {
    expect(localeFromRedirect(`${site}/ar/`, site)).toBe('ar');
    expect(localeFromRedirect(`${site}/ar`, site)).toBe('ar');
    expect(localeFromRedirect('http://localhost:5173/ar/auth?x=1', site)).toBe('ar');
    expect(localeFromRedirect(`${site}/arabic`, site)).toBe('en');
    expect(localeFromRedirect(`${site}/`, site)).toBe('en');
    expect(localeFromRedirect(site, site)).toBeUndefined(); // no redirect_to: the route passed SITE_URL
    expect(localeFromRedirect('myapp://callback', site)).toBeUndefined();
    expect(localeFromRedirect(undefined, site)).toBeUndefined();
  });

  it('prefers the request, then user_metadata.locale, then English', () => {
    expect(mailLocaleFor(`${site}/`, site, { locale: 'ar' })).toBe('en');
    expect(mailLocaleFor(site, site, { locale: 'ar-SA' })).toBe('ar');
    expect(mailLocaleFor(undefined, site, { locale: 'fr' })).toBe('en');
    expect(mailLocaleFor(undefined, site, null)).toBe('en');
    expect(parseLocale('AR_sa')).toBe('ar');
    expect(parseLocale(7)).toBeUndefined();
  });

  it('remembers Arabic at sign-up, and never overwrites a locale the client sent', () => {
    expect(signupLocale({ name: 'x' }, `${site}/ar/`, site)).toEqual({
      locale: 'ar',
      metadata: { name: 'x', locale: 'ar' },
    });
    expect(signupLocale({ name: 'x' }, `${site}/`, site)).toEqual({ locale: 'en', metadata: { name: 'x' } });
    expect(signupLocale({ locale: 'en' }, `${site}/ar/`, site)).toEqual({
      locale: 'en',
      metadata: { locale: 'en' },
    });
    expect(signupLocale({ locale: 'fr' }, `${site}/ar/`, site)).toEqual({
      locale: 'ar',
      metadata: { locale: 'fr' },
    });
    // Metadata already at the size limit stays as sent (the mail is still Arabic).
    const full = { note: 'x'.repeat(20) };
    expect(signupLocale(full, `${site}/ar/`, site, JSON.stringify(full).length + 5)).toEqual({
      locale: 'ar',
      metadata: full,
    });
  });
});
