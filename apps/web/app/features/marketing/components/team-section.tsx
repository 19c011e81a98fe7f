import { Compass, Eye } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const members = ['ceo', 'cto'] as const;

/**
 * Initials for the founder avatars (no photos: nothing to download, nothing to shift layout).
 * Drops the title (Dr., د.) and the article (Al-, ال); Arabic initials are joined with a zero-width
 * non-joiner so the two letters stay separate letters instead of shaping into a word.
 */
export function initials(name: string): string {
  const letters = name
    .replace(/^(Dr\.|د\.)\s*/, '')
    .split(/\s+/)
    .map((part) => part.replace(/^(Al-|ال)/, '')[0] ?? '')
    .slice(0, 2);
  return letters.join(/[\u0600-\u06FF]/.test(name) ? '\u200C' : '');
}

export function TeamSection() {
  const m = useMessages();
  return (
    <section id="team" aria-labelledby="team-heading" className="py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="team-heading"
          eyebrow={m.team.eyebrow}
          title={m.team.title}
          intro={m.team.intro}
        />
        <ul className="mt-12 grid gap-6 md:grid-cols-2">
          {members.map((id) => {
            const member = m.team.members[id];
            return (
              <li key={id} className="rounded-2xl border border-sand-200 bg-white p-7">
                <div className="flex items-center gap-4">
                  <span
                    aria-hidden="true"
                    className="inline-flex size-16 items-center justify-center rounded-full bg-oasis-800 text-xl font-bold text-saffron-300"
                  >
                    {initials(member.name)}
                  </span>
                  <div>
                    <h3 className="text-xl font-bold">{member.name}</h3>
                    <p className="font-semibold text-oasis-700">{member.role}</p>
                  </div>
                </div>
                <p className="mt-5 text-sm">
                  <span className="font-bold">{m.team.expertiseLabel}: </span>
                  <span className="text-muted">{member.expertise}</span>
                </p>
                <p className="mt-3 leading-relaxed text-muted">{member.bio}</p>
              </li>
            );
          })}
        </ul>
        <div className="mt-6 grid gap-6 md:grid-cols-2">
          <div className="rounded-2xl bg-oasis-50 p-7">
            <h3 className="flex items-center gap-2 text-lg font-bold">
              <Compass aria-hidden="true" className="size-5 text-oasis-700" />
              {m.team.philosophyTitle}
            </h3>
            <p className="mt-3 leading-relaxed text-ink">{m.team.philosophy}</p>
          </div>
          <div className="rounded-2xl bg-oasis-50 p-7">
            <h3 className="flex items-center gap-2 text-lg font-bold">
              <Eye aria-hidden="true" className="size-5 text-oasis-700" />
              {m.team.visionTitle}
            </h3>
            <p className="mt-3 leading-relaxed text-ink">{m.team.vision}</p>
          </div>
        </div>
      </div>
    </section>
  );
}
