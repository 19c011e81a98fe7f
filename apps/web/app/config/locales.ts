// Supported locales and how they map onto URL prefixes. English is the default and has no prefix;
// the Arabic edition lives under /ar/.
export type Locale = 'en' | 'ar';
/** Locales that are built and served. */
export const locales: readonly Locale[] = ['en', 'ar'];
export const defaultLocale: Locale = 'en';

export const localeDirection: Record<Locale, 'ltr' | 'rtl'> = { en: 'ltr', ar: 'rtl' };

/** Each locale's name in its own language: the text of the language switcher. */
export const localeNativeName: Record<Locale, string> = { en: 'English', ar: 'العربية' };

/** The other edition (the site has exactly two). */
export function alternateLocale(locale: Locale): Locale {
  return locale === 'ar' ? 'en' : 'ar';
}

/** The path prefix of a locale: '' for English, '/ar' for Arabic. */
export function localePrefix(locale: Locale): string {
  return locale === defaultLocale ? '' : `/${locale}`;
}

/** The locale a pathname belongs to, from its first segment. */
export function localeFromPathname(pathname: string): Locale {
  return pathname === '/ar' || pathname.startsWith('/ar/') ? 'ar' : 'en';
}

/**
 * The pathname without its locale prefix, starting with exactly one '/'. A 404 page builds its
 * language link from the missing path: `/ar//evil.example/x` must not become `//evil.example/x`, a
 * protocol-relative link off the site.
 */
export function stripLocale(pathname: string): string {
  const locale = localeFromPathname(pathname);
  const rest = locale === defaultLocale ? pathname : pathname.slice(localePrefix(locale).length);
  return `/${rest.replace(/^\/+/, '')}`;
}
