import { BrainCircuit, Languages, Plug, Sparkles } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const edges = [
  ['bilingual', Languages],
  ['models', BrainCircuit],
  ['integrations', Plug],
  ['adaptive', Sparkles],
] as const;

export function EdgeSection() {
  const m = useMessages();
  return (
    <section aria-labelledby="edge-heading" className="py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading id="edge-heading" eyebrow={m.edge.eyebrow} title={m.edge.title} />
        <ul className="mt-12 grid gap-6 sm:grid-cols-2">
          {edges.map(([id, Icon]) => (
            <li key={id} className="flex gap-5 rounded-2xl border border-sand-200 bg-white p-7">
              <span className="inline-flex size-12 shrink-0 items-center justify-center rounded-full bg-saffron-300 text-oasis-950">
                <Icon aria-hidden="true" className="size-6" />
              </span>
              <div>
                <h3 className="text-lg font-bold">{m.edge.items[id].title}</h3>
                <p className="mt-1.5 leading-relaxed text-muted">{m.edge.items[id].body}</p>
              </div>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
