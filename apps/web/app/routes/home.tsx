import type { MetaFunction } from 'react-router';
import { localeFromPathname } from '../config/locales.ts';
import { BusinessSection } from '../features/marketing/components/business-section.tsx';
import { ChallengeSection } from '../features/marketing/components/challenge-section.tsx';
import { EdgeSection } from '../features/marketing/components/edge-section.tsx';
import { HeroSection } from '../features/marketing/components/hero-section.tsx';
import { MarketSection } from '../features/marketing/components/market-section.tsx';
import { ProductsSection } from '../features/marketing/components/products-section.tsx';
import { SiteFooter } from '../features/marketing/components/site-footer.tsx';
import { SiteNav } from '../features/marketing/components/site-nav.tsx';
import { SolutionSection } from '../features/marketing/components/solution-section.tsx';
import { TeamSection } from '../features/marketing/components/team-section.tsx';
import { organizationJsonLd, pageMeta } from '../lib/seo.ts';

export const meta: MetaFunction = ({ location }) => {
  const locale = localeFromPathname(location.pathname);
  return [...pageMeta('home', locale, location.pathname), organizationJsonLd(locale)];
};

/** `/`: the sections of spec §2 in their required order. */
export default function HomeRoute() {
  return (
    <>
      <SiteNav />
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
