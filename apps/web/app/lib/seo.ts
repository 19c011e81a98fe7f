import type { MetaDescriptor } from 'react-router';
import { type Locale, localePrefix, locales, stripLocale } from '~/config/locales.ts';
import { siteConfig } from '~/config/site.ts';
import { getMessages } from '~/i18n/messages.ts';

export type PageKey = 'home' | 'auth' | 'forgot' | 'reset' | 'account' | 'privacy' | 'notFound';

const ogLocale: Record<Locale, string> = { en: 'en_US', ar: 'ar_SA' };

/** Absolute URL of a path on the public origin. */
export function absoluteUrl(path: string): string {
  return new URL(path, siteConfig.origin).toString();
}

/**
 * Title, description, canonical, hreflang alternates, Open Graph and Twitter tags for a page.
 * `pathname` is the locale-prefixed path of the page; alternates are emitted for every built locale.
 */
export function pageMeta(page: PageKey, locale: Locale, pathname: string): MetaDescriptor[] {
  const m = getMessages(locale);
  const { title, description } = m.meta[page];
  // The prerenderer may see '/auth/' while the browser sees '/auth': normalise so both render the
  // same canonical URL (two different ones would conflict after hydration).
  const bare = stripLocale(pathname).replace(/\/+$/, '') || '/';
  const url = absoluteUrl(`${localePrefix(locale)}${bare}`);
  const image = absoluteUrl('/og-image.png');
  const meta: MetaDescriptor[] = [
    { title },
    { name: 'description', content: description },
    { property: 'og:type', content: 'website' },
    { property: 'og:site_name', content: m.meta.siteName },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { property: 'og:locale', content: ogLocale[locale] },
    { property: 'og:image', content: image },
    { property: 'og:image:width', content: '1200' },
    { property: 'og:image:height', content: '630' },
    { property: 'og:image:alt', content: m.meta.ogImageAlt },
    { name: 'twitter:card', content: 'summary_large_image' },
    { name: 'twitter:title', content: title },
    { name: 'twitter:description', content: description },
    { name: 'twitter:image', content: image },
  ];
  if (page === 'notFound') {
    meta.push({ name: 'robots', content: 'noindex' });
    return meta;
  }
  // A signed-in page: nothing on it is for a search engine.
  if (page === 'account') meta.push({ name: 'robots', content: 'noindex' });
  meta.push({ property: 'og:url', content: url }, { tagName: 'link', rel: 'canonical', href: url });
  if (locales.length > 1) {
    for (const alternate of locales) {
      meta.push({
        tagName: 'link',
        rel: 'alternate',
        hrefLang: alternate,
        href: absoluteUrl(`${localePrefix(alternate)}${bare}`),
      });
    }
    meta.push({ tagName: 'link', rel: 'alternate', hrefLang: 'x-default', href: absoluteUrl(bare) });
  }
  return meta;
}

/** schema.org Organization for the home page (JSON-LD). */
export function organizationJsonLd(locale: Locale): MetaDescriptor {
  const m = getMessages(locale);
  return {
    'script:ld+json': {
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: siteConfig.name,
      url: siteConfig.websiteUrl,
      logo: absoluteUrl('/icon-512.png'),
      email: siteConfig.contactEmail,
      description: m.meta.organizationDescription,
      address: { '@type': 'PostalAddress', addressLocality: siteConfig.city, addressCountry: 'SA' },
      founder: Object.values(m.team.members).map((member) => ({
        '@type': 'Person',
        name: member.name,
        jobTitle: member.role,
      })),
    },
  };
}
