import { Globe, Mail } from '~/components/ui/icons.tsx';
import { paths } from '~/config/paths.ts';
import { siteConfig } from '~/config/site.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { BrandMark } from './brand-mark.tsx';
import { navSections } from './site-nav.tsx';

export function SiteFooter() {
  const m = useMessages();
  const locale = useLocale();
  return (
    <footer id="contact" className="bg-oasis-950 text-oasis-100">
      <div className="mx-auto grid max-w-7xl gap-12 px-4 py-16 sm:px-6 md:grid-cols-3 lg:px-8">
        <div>
          <p className="flex items-center gap-2.5 text-lg font-bold text-white">
            <BrandMark />
            {m.meta.siteName}
          </p>
          <p className="mt-4 max-w-xs leading-relaxed">{m.footer.tagline}</p>
        </div>
        <nav aria-labelledby="footer-links-heading">
          <h2 id="footer-links-heading" className="font-bold text-white">
            {m.footer.quickLinks}
          </h2>
          <ul className="mt-4 space-y-1">
            {navSections.map((id) => (
              <li key={id}>
                <a
                  href={paths.section.getHref(locale, id)}
                  className="inline-block py-1.5 hover:text-white hover:underline"
                >
                  {m.nav.sections[id]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div>
          <h2 id="contact-heading" className="font-bold text-white">
            {m.footer.contactTitle}
          </h2>
          <ul className="mt-4 space-y-3">
            <li className="flex items-center gap-3">
              <Mail aria-hidden="true" className="size-5 text-saffron-300" />
              <span className="sr-only">{m.footer.emailLabel}: </span>
              <a
                href={`mailto:${siteConfig.contactEmail}`}
                className="underline-offset-4 hover:text-white hover:underline"
              >
                <bdi>{siteConfig.contactEmail}</bdi>
              </a>
            </li>
            <li className="flex items-center gap-3">
              <Globe aria-hidden="true" className="size-5 text-saffron-300" />
              <span className="sr-only">{m.footer.websiteLabel}: </span>
              <a href={siteConfig.websiteUrl} className="underline-offset-4 hover:text-white hover:underline">
                <bdi>{siteConfig.websiteLabel}</bdi>
              </a>
            </li>
          </ul>
        </div>
      </div>
      <div className="border-t border-white/10">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-4 px-4 py-6 text-sm sm:px-6 lg:px-8">
          <p>{m.footer.copyright}</p>
          <a
            href={paths.privacy.getHref(locale)}
            className="underline-offset-4 hover:text-white hover:underline"
            data-testid="footer-privacy"
          >
            {m.footer.privacy}
          </a>
        </div>
      </div>
    </footer>
  );
}
