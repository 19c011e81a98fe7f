import type { MetaFunction } from 'react-router';
import { SiteFooter } from '~/components/layout/site-footer.tsx';
import { SiteNav } from '~/components/layout/site-nav.tsx';
import { localeFromPathname } from '~/config/locales.ts';
import { PrivacyNotice } from '~/features/marketing/components/privacy-notice.tsx';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('privacy', localeFromPathname(location.pathname), location.pathname);

/** `/privacy`: the privacy notice the sign-up form links to (PDPL consent). */
export default function PrivacyRoute() {
  return (
    <>
      <SiteNav page="privacy" />
      <main id="main">
        <PrivacyNotice />
      </main>
      <SiteFooter />
    </>
  );
}
