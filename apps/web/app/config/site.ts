// Site-wide facts. The brand name lives here once; every page and message reads it from here.
export const siteConfig = {
  name: 'Namaa',
  /**
   * The brand in Arabic script, shown by the Arabic edition (wordmark, copy, og:site_name). The Latin
   * `name` stays the canonical brand (JSON-LD name, emails); نماء is its `alternateName`.
   */
  nameAr: 'نماء',
  contactEmail: 'hello@namaa.ai',
  websiteUrl: 'https://namaa.ai',
  websiteLabel: 'namaa.ai',
  /** Public origin used for canonical URLs, Open Graph and the sitemap. */
  origin: 'https://namaa.ai',
  copyrightYear: 2025,
  themeColor: '#0b3d2e',
  /** The web app manifest: linked by the deferred bootstrap, not by the HTML (scripts/defer-bootstrap.ts). */
  manifestPath: '/site.webmanifest',
  city: 'Riyadh',
  /**
   * Where a phone number typed without a country code is from (ISO 3166-1 alpha-2): `05x xxx xxxx`
   * and `5x xxx xxxx` are Saudi mobiles. Numbers elsewhere are typed with `+` or `00`.
   */
  phoneCountry: 'SA',
  /** The numbers the phone form shows as examples: as dialled at home, with the code, and abroad. */
  phoneExamples: { local: '050 123 4567', international: '+966 50 123 4567', abroad: '+44 7911 123456' },
} as const;

export type SiteConfig = typeof siteConfig;
