import { Check } from '~/components/ui/icons.tsx';
import { SectionHeading } from '~/components/ui/section-heading.tsx';
import { useMessages } from '~/i18n/locale-context.tsx';

const otherLines = ['consulting', 'managed', 'api', 'whiteLabel'] as const;
const tiers = ['basic', 'pro', 'enterprise'] as const;

export function BusinessSection() {
  const m = useMessages();
  const subscriptions = m.business.lines.subscriptions;
  return (
    <section aria-labelledby="business-heading" className="bg-sand-100 py-20 sm:py-28">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading id="business-heading" eyebrow={m.business.eyebrow} title={m.business.title} />
        <div className="mt-12 grid gap-6 lg:grid-cols-5">
          <div className="rounded-2xl bg-oasis-800 p-7 text-white lg:col-span-2">
            <h3 className="text-xl font-bold">{subscriptions.title}</h3>
            <p className="mt-2 text-oasis-100">{subscriptions.body}</p>
            <ul className="mt-6 space-y-3">
              {tiers.map((tier) => (
                <li
                  key={tier}
                  className="flex items-center gap-3 rounded-xl bg-white/10 px-4 py-3 font-semibold"
                >
                  <Check aria-hidden="true" className="size-5 text-saffron-300" />
                  {subscriptions.tiers[tier]}
                </li>
              ))}
            </ul>
          </div>
          <ul className="grid gap-6 sm:grid-cols-2 lg:col-span-3">
            {otherLines.map((id) => (
              <li key={id} className="rounded-2xl border border-sand-200 bg-white p-6">
                <h3 className="text-lg font-bold">{m.business.lines[id].title}</h3>
                <p className="mt-2 leading-relaxed text-muted">{m.business.lines[id].body}</p>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}
