import { ChartLine, Coins, Languages, Telescope, Users, Workflow } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const capabilities = [
  ['unify', Workflow],
  ['insight', Users],
  ['create', Languages],
  ['predict', Telescope],
  ['optimize', ChartLine],
  ['measure', Coins],
] as const;

export function SolutionSection() {
  const m = useMessages();
  return (
    <section id="solutions" aria-labelledby="solutions-heading" className="bg-oasis-50 py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="solutions-heading"
          eyebrow={m.solution.eyebrow}
          title={m.solution.title}
          intro={m.solution.intro}
        />
        <ul className="mt-12 grid gap-x-10 gap-y-10 sm:grid-cols-2 lg:grid-cols-3">
          {capabilities.map(([id, Icon]) => (
            <li key={id} className="flex gap-4">
              <span className="inline-flex size-11 shrink-0 items-center justify-center rounded-xl bg-oasis-700 text-white">
                <Icon aria-hidden="true" className="size-5" />
              </span>
              <div>
                <h3 className="text-lg font-bold">{m.solution.capabilities[id].title}</h3>
                <p className="mt-1.5 leading-relaxed text-muted">{m.solution.capabilities[id].body}</p>
              </div>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
