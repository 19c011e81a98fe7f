import { CircleDollarSign, Flame, Layers, Unplug } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const problems = [
  ['chaos', Layers],
  ['data', Unplug],
  ['trends', Flame],
  ['roi', CircleDollarSign],
] as const;

export function ChallengeSection() {
  const m = useMessages();
  return (
    <section aria-labelledby="challenge-heading" className="py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="challenge-heading"
          eyebrow={m.challenge.eyebrow}
          title={m.challenge.title}
          intro={m.challenge.intro}
        />
        <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {problems.map(([id, Icon]) => (
            <li key={id} className="rounded-2xl border border-sand-200 bg-white p-6">
              <span className="inline-flex size-11 items-center justify-center rounded-xl bg-danger-soft text-danger">
                <Icon aria-hidden="true" className="size-5" />
              </span>
              <h3 className="mt-5 text-lg font-bold">{m.challenge.problems[id].title}</h3>
              <p className="mt-2 leading-relaxed text-muted">{m.challenge.problems[id].body}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
