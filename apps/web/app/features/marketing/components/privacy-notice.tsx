import { siteConfig } from '~/config/site.ts';
import { useMessages } from '~/i18n/locale-context.tsx';

/** The privacy notice (PDPL): what is collected, why, how long, where, and the visitor's rights. */
export function PrivacyNotice() {
  const m = useMessages();
  const p = m.privacy;
  return (
    <article aria-labelledby="privacy-heading" className="mx-auto max-w-3xl px-4 py-16 sm:px-6 lg:px-8">
      <h1 id="privacy-heading" className="text-3xl font-extrabold tracking-tight sm:text-4xl">
        {p.heading}
      </h1>
      <p className="mt-2 text-sm text-muted">{p.updated}</p>
      <p className="mt-6 leading-relaxed">{p.intro}</p>
      {p.sections.map((s) => (
        <section key={s.title} className="mt-8">
          <h2 className="text-xl font-bold">{s.title}</h2>
          <p className="mt-2 leading-relaxed text-muted">{s.body}</p>
        </section>
      ))}
      <p className="mt-10">
        {p.contact}{' '}
        <a
          href={`mailto:${siteConfig.contactEmail}`}
          className="font-medium text-oasis-700 underline underline-offset-4"
        >
          <bdi>{siteConfig.contactEmail}</bdi>
        </a>
      </p>
    </article>
  );
}
