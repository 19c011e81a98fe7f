// Which language a message is written in. The rule (README, "Mail"):
//   1. sign-up: `data.locale` when the client sends one ('ar', 'ar-SA', 'en', …);
//   2. the request's redirect_to: a path at or under /ar/ is the Arabic edition (on any allowed
//      origin); any other page of the site (SITE_URL's origin) is the English edition;
//   3. otherwise (no redirect_to, or another app's URL) the language remembered on the user,
//      `user_metadata.locale`: the client's `data.locale`, or 'ar' written at a sign-up from the
//      Arabic edition;
//   4. English.
// `user_metadata` is where GoTrue keeps what a client says about its user, so the language is
// visible to the app (`user.user_metadata.locale`), changeable with `updateUser({ data: { locale } })`,
// and usable in an operator's Supabase template as `{{ .Data.locale }}`.

export type MailLocale = 'en' | 'ar';
export const MAIL_LOCALES: readonly MailLocale[] = ['en', 'ar'];

/** A locale string as clients send it ('ar', 'ar-SA', 'AR', 'en-GB') → one we write mail in, or undefined. */
export function parseLocale(value: unknown): MailLocale | undefined {
  if (typeof value !== 'string') return undefined;
  const lang = value.trim().toLowerCase().split(/[-_]/)[0];
  return lang === 'ar' || lang === 'en' ? lang : undefined;
}

/** The language a redirect_to (already validated) points at, or undefined when it says nothing. */
export function localeFromRedirect(redirectTo: string | undefined, siteUrl: string): MailLocale | undefined {
  if (!redirectTo) return undefined;
  let url: URL;
  try {
    url = new URL(redirectTo);
  } catch {
    return undefined;
  }
  if (url.pathname === '/ar' || url.pathname.startsWith('/ar/')) return 'ar';
  // No redirect_to in the request: the route passed SITE_URL itself, which tells nothing.
  if (redirectTo === siteUrl) return undefined;
  return url.origin === new URL(siteUrl).origin ? 'en' : undefined;
}

/** The language of a message for a user: the request's own signal first, then the remembered one. */
export function mailLocaleFor(
  redirectTo: string | undefined,
  siteUrl: string,
  userMetadata: unknown,
): MailLocale {
  return (
    localeFromRedirect(redirectTo, siteUrl) ??
    parseLocale((userMetadata as Record<string, unknown> | null | undefined)?.locale) ??
    'en'
  );
}

/**
 * Sign-up: the language of its confirmation mail, and the metadata to store. When the client sent
 * no `data.locale` but came from the Arabic edition, `user_metadata.locale = 'ar'` is remembered for
 * later mail (a recovery started from the API has no page to go by).
 */
export function signupLocale(
  data: Record<string, unknown>,
  redirectTo: string,
  siteUrl: string,
  /** The metadata size limit: remembering the language never takes the metadata past it. */
  maxMetadataBytes = Number.POSITIVE_INFINITY,
): { locale: MailLocale; metadata: Record<string, unknown> } {
  const given = parseLocale(data.locale);
  if (given) return { locale: given, metadata: data };
  // Only a language other than the default is written: English sign-ups keep exactly the metadata
  // the client sent (as GoTrue would), and mail without a signal is English anyway.
  // A locale the client did send (one we have no mail in, e.g. 'fr') is never overwritten.
  if (localeFromRedirect(redirectTo, siteUrl) === 'ar') {
    const remembered = { ...data, locale: 'ar' };
    const fits = JSON.stringify(remembered).length <= maxMetadataBytes;
    return { locale: 'ar', metadata: 'locale' in data || !fits ? data : remembered };
  }
  return { locale: 'en', metadata: data };
}
