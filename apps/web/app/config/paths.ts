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
  /** The signed-in visitor's account page (email, password, two-step verification, devices, data). */
  account: {
    path: '/account',
    getHref: (locale: Locale): string => `${localePrefix(locale)}/account`,
  },
  /** The privacy notice (PDPL), linked from the sign-up form and the footer. */
  privacy: {
    path: '/privacy',
    getHref: (locale: Locale): string => `${localePrefix(locale)}/privacy`,
  },
  notFound: {
    /** Where the prerendered 404 page is written before the post-build step copies it to 404.html. */
    path: '/404',
  },
} as const;

/** Every path the build prerenders (all locales): home, auth, its recovery pages, the account page, the privacy notice and the 404 page. */
export const prerenderPaths: string[] = locales.flatMap((locale) => {
  const prefix = localePrefix(locale);
  return [
    `${prefix}/`,
    `${prefix}/auth`,
    `${prefix}/auth/forgot`,
    `${prefix}/auth/reset`,
    `${prefix}/account`,
    `${prefix}/privacy`,
    `${prefix}/404`,
  ];
});

/** Paths listed in sitemap.xml (the 404 page and the signed-in account page are not). */
export const sitemapPaths: string[] = locales.flatMap((locale) => [
  paths.home.getHref(locale),
  paths.auth.getHref(locale),
  paths.forgotPassword.getHref(locale),
  paths.privacy.getHref(locale),
]);

/**
 * Where to go after signing in: the `next` query parameter when it is a path of this site (one
 * leading slash, no scheme, no backslash, no control character), otherwise the home page. `//x`,
 * `/\\x` and `https://x` would leave the site (an open redirect), so they are refused.
 */
export function safeNextPath(next: string | null | undefined, locale: Locale): string {
  if (!next || next.length > 512) return paths.home.getHref(locale);
  const control = [...next].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (!/^\/(?![/\\])/.test(next) || next.includes('\\') || control) return paths.home.getHref(locale);
  return next;
}

/** The sign-in page, asked to come back to `next` (a path of this site) once signed in. */
export function signInHrefFor(locale: Locale, next: string): string {
  return `${paths.auth.getHref(locale)}?next=${encodeURIComponent(next)}`;
}
