import { buttonVariants } from '~/components/ui/button.tsx';
import { ArrowRight, MapPin } from '~/components/ui/icons.tsx';
import { paths } from '~/config/paths.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { cn } from '~/lib/utils.ts';

const statIds = ['market', 'cagr', 'products'] as const;

export function HeroSection() {
  const m = useMessages();
  const locale = useLocale();
  return (
    <section
      aria-labelledby="hero-heading"
      className="relative overflow-hidden bg-oasis-950 pt-16 text-white"
      data-testid="hero"
    >
      {/* Decorative light: two soft gradients, no image request. */}
      <div
        aria-hidden="true"
        className="pointer-events-none absolute inset-0 bg-[radial-gradient(60rem_30rem_at_85%_-10%,rgb(31_158_114/0.35),transparent),radial-gradient(40rem_24rem_at_0%_110%,rgb(242_180_65/0.18),transparent)]"
      />
      <div className="relative mx-auto max-w-7xl px-4 pt-16 pb-20 sm:px-6 sm:pt-24 lg:px-8 lg:pb-28">
        <p className="inline-flex items-center gap-2 rounded-full border border-white/15 bg-white/5 px-4 py-1.5 text-sm font-medium text-oasis-100">
          <MapPin aria-hidden="true" className="size-4 text-saffron-400" />
          {m.hero.badge}
        </p>
        <h1
          id="hero-heading"
          className="mt-6 max-w-4xl text-4xl leading-tight font-extrabold tracking-tight text-balance sm:text-5xl lg:text-6xl"
        >
          {m.hero.headline}
        </h1>
        <p className="mt-6 max-w-2xl text-lg leading-relaxed text-oasis-100 sm:text-xl">{m.hero.tagline}</p>
        <div className="mt-10 flex flex-wrap gap-4">
          <a
            href={paths.section.getHref(locale, 'products')}
            className={buttonVariants({ variant: 'primary', size: 'lg' })}
          >
            {m.hero.explore}
            <ArrowRight aria-hidden="true" className="rtl:-scale-x-100" />
          </a>
          <a
            href={paths.section.getHref(locale, 'contact')}
            className={cn(buttonVariants({ variant: 'outline', size: 'lg' }), 'text-white')}
          >
            {m.hero.contact}
          </a>
        </div>
        <ul aria-label={m.hero.statsLabel} className="mt-16 grid gap-4 sm:grid-cols-3">
          {statIds.map((id) => (
            <li key={id} className="rounded-2xl border border-white/10 bg-white/5 p-6">
              <p className="text-4xl font-extrabold tracking-tight text-saffron-300">
                <bdi>{m.hero.stats[id].value}</bdi>
              </p>
              <p className="mt-2 text-sm text-oasis-100">{m.hero.stats[id].label}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
