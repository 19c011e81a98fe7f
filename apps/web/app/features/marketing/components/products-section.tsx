import { Bot, LayoutDashboard, Lightbulb, PenLine, Rocket, ScanSearch } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const modules = [
  ['analyzer', ScanSearch],
  ['creator', PenLine],
  ['optimizer', Rocket],
  ['strategist', Lightbulb],
  ['dashboard', LayoutDashboard],
  ['engagement', Bot],
] as const;

const platforms = ['instagram', 'x', 'tiktok', 'facebook', 'linkedin', 'youtube'] as const;

export function ProductsSection() {
  const m = useMessages();
  return (
    <section id="products" aria-labelledby="products-heading" className="py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="products-heading"
          eyebrow={m.products.eyebrow}
          title={m.products.title}
          intro={m.products.intro}
        />
        <ol className="mt-12 grid gap-6 md:grid-cols-2 lg:grid-cols-3">
          {modules.map(([id, Icon], index) => (
            <li
              key={id}
              className="group relative flex flex-col rounded-2xl border border-sand-200 bg-white p-7 transition-shadow duration-300 hover:shadow-lg hover:shadow-oasis-900/5"
            >
              <div className="flex items-center justify-between">
                <span className="inline-flex size-12 items-center justify-center rounded-xl bg-oasis-100 text-oasis-800">
                  <Icon aria-hidden="true" className="size-6" />
                </span>
                <span aria-hidden="true" className="text-sm font-bold text-muted tabular-nums">
                  0{index + 1}
                </span>
              </div>
              <h3 className="mt-6 text-xl font-bold">{m.products.modules[id].name}</h3>
              <p className="mt-2 leading-relaxed text-muted">{m.products.modules[id].body}</p>
              {id === 'engagement' ? (
                <div className="mt-5">
                  <p className="text-sm font-semibold text-oasis-800">{m.products.platformsLabel}</p>
                  <ul className="mt-3 flex flex-wrap gap-2">
                    {platforms.map((platform) => (
                      <li
                        key={platform}
                        className="rounded-full bg-sand-100 px-3 py-1 text-sm font-medium text-ink"
                        lang="en"
                      >
                        {m.products.platforms[platform]}
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
