import { Briefcase, Building2, Store, UserRound } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const figures = ['market', 'cagr', 'products'] as const;
const audiences = [
  ['creators', UserRound],
  ['agencies', Briefcase],
  ['smes', Store],
  ['enterprise', Building2],
] as const;

export function MarketSection() {
  const m = useMessages();
  return (
    <section aria-labelledby="market-heading" className="bg-oasis-900 py-20 text-white sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="market-heading"
          tone="dark"
          eyebrow={m.market.eyebrow}
          title={m.market.title}
          intro={m.market.intro}
        />
        <dl className="mt-12 grid gap-6 sm:grid-cols-3">
          {figures.map((id) => (
            <div key={id} className="border-s-2 border-saffron-400 ps-5">
              <dt className="text-oasis-100">{m.market.figures[id].label}</dt>
              <dd className="order-first text-5xl font-extrabold tracking-tight text-white">
                <bdi>{m.market.figures[id].value}</bdi>
              </dd>
            </div>
          ))}
        </dl>
        <div className="mt-16 rounded-2xl bg-white/5 p-6 sm:p-8">
          <h3 className="text-lg font-bold">{m.market.audiencesTitle}</h3>
          <ul className="mt-5 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
            {audiences.map(([id, Icon]) => (
              <li key={id} className="flex items-center gap-3 text-oasis-50">
                <Icon aria-hidden="true" className="size-5 shrink-0 text-saffron-300" />
                {m.market.audiences[id]}
              </li>
            ))}
          </ul>
          <p className="mt-6 text-sm text-oasis-100">{m.market.expansion}</p>
        </div>
      </div>
    </section>
  );
}
