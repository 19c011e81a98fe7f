import { useEffect } from 'react';
import { type MetaFunction, useNavigate } from 'react-router';
import { SiteFooter } from '~/components/layout/site-footer.tsx';
import { SiteNav } from '~/components/layout/site-nav.tsx';
import { localeFromPathname } from '~/config/locales.ts';
import { paths } from '~/config/paths.ts';
import { PasskeyRegister } from '~/features/auth/components/passkey-register.tsx';
import { noticeFor } from '~/features/auth/lib/notice.ts';
import { BusinessSection } from '~/features/marketing/components/business-section.tsx';
import { ChallengeSection } from '~/features/marketing/components/challenge-section.tsx';
import { EdgeSection } from '~/features/marketing/components/edge-section.tsx';
import { HeroSection } from '~/features/marketing/components/hero-section.tsx';
import { MarketSection } from '~/features/marketing/components/market-section.tsx';
import { ProductsSection } from '~/features/marketing/components/products-section.tsx';
import { SolutionSection } from '~/features/marketing/components/solution-section.tsx';
import { TeamSection } from '~/features/marketing/components/team-section.tsx';
import { useLocale } from '~/i18n/locale-context.tsx';
import { takeLandingOutcome } from '~/lib/auth-client.ts';
import { organizationJsonLd, pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) => {
  const locale = localeFromPathname(location.pathname);
  return [...pageMeta('home', locale, location.pathname), organizationJsonLd(locale)];
};

// Runs while the page is parsed (before the sections are laid out): lifts the content-visibility
// skipping of app.css when a #fragment must be scrolled to, at load or when an in-page link is
// followed (capture phase, before the browser's own scroll), so targets land at their real offset.
const fullLayoutScript = `(()=>{const f=()=>{document.documentElement.dataset.fullLayout=""};location.hash&&f();addEventListener("click",e=>{e.target.closest?.('a[href*="#"]')&&f()},true)})()`;

/** `/`: the sections of spec §2 in their required order. */
export default function HomeRoute() {
  const locale = useLocale();
  const navigate = useNavigate();
  // A confirmation link lands here (the spec's redirect to the site root). Signed in: the nav shows
  // it. Opened in another browser, expired, used or invalid: the auth page says so and offers the
  // next step (sign in, or a new link). No link: nothing is loaded.
  useEffect(() => {
    let cancelled = false;
    void takeLandingOutcome()
      .catch(() => undefined)
      .then((outcome) => {
        const notice = outcome && noticeFor(outcome);
        if (!cancelled && notice) navigate(paths.auth.getHref(locale), { state: { notice } });
      });
    return () => {
      cancelled = true;
    };
  }, [locale, navigate]);
  return (
    <>
      {/* fullLayoutScript runs in the navigation's inline script (one CSP hash fewer), still before
          <main> is parsed. */}
      <SiteNav pageScript={fullLayoutScript} signedInExtra={<PasskeyRegister />} />
      <main id="main">
        <HeroSection />
        <ChallengeSection />
        <SolutionSection />
        <ProductsSection />
        <MarketSection />
        <EdgeSection />
        <BusinessSection />
        <TeamSection />
      </main>
      <SiteFooter />
    </>
  );
}
