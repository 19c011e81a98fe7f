import { type Locale, localePrefix, locales } from './locales.ts';

export type AuthMode = 'signin' | 'signup';
export type SectionId = 'solutions' | 'products' | 'team' | 'contact';

/**
 * Typed paths with locale-aware href builders. Components never write a URL by hand; they ask
 * `paths.x.getHref(locale, ...)`. English URLs have no prefix, Arabic URLs start with /ar.
 */
export const paths = {
  home: {
    path: '/',
    getHref: (locale: Locale): string => `${localePrefix(locale)}/`,
  },
  section: {
    getHref: (locale: Locale, id: SectionId): string => `${localePrefix(locale)}/#${id}`,
  },
  auth: {
    path: '/auth',
    getHref: (locale: Locale, mode: AuthMode = 'signin'): string =>
      `${localePrefix(locale)}/auth${mode === 'signup' ? '?mode=signup' : ''}`,
  },
  /** The recovery form ("Forgot password?"): a page of its own, prerendered in both languages. */
  forgotPassword: {
    path: '/auth/forgot',
    getHref: (locale: Locale): string => `${localePrefix(locale)}/auth/forgot`,
  },
  /** Where a password-recovery link lands ("Set a new password"). */
  resetPassword: {
    path: '/auth/reset',
    getHref: (locale: Locale): string => `${localePrefix(locale)}/auth/reset`,
  },
  notFound: {
    /** Where the prerendered 404 page is written before the post-build step copies it to 404.html. */
    path: '/404',
  },
} as const;

/** Every path the build prerenders (all locales): home, auth, its recovery pages and the 404 page. */
export const prerenderPaths: string[] = locales.flatMap((locale) => {
  const prefix = localePrefix(locale);
  return [`${prefix}/`, `${prefix}/auth`, `${prefix}/auth/forgot`, `${prefix}/auth/reset`, `${prefix}/404`];
});

/** Paths listed in sitemap.xml (the 404 page is not one of them). */
export const sitemapPaths: string[] = locales.flatMap((locale) => [
  paths.home.getHref(locale),
  paths.auth.getHref(locale),
  paths.forgotPassword.getHref(locale),
]);
