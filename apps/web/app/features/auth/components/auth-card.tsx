import { type ReactNode, useId } from 'react';
import { BrandMark } from '~/components/layout/brand-mark.tsx';
import { FirstPaintAfter } from '~/components/layout/first-paint-after.tsx';
import { LanguageSwitcher, type SwitcherPage } from '~/components/layout/language-switcher.tsx';
import { buttonVariants } from '~/components/ui/button.tsx';
import { ArrowLeft } from '~/components/ui/icons.tsx';
import { paths } from '~/config/paths.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { cn } from '~/lib/utils.ts';

/**
 * The card: the first paint waits for its start, so the row above it (back to home, the language
 * link) is whole on screen. One card per page, so a fixed id.
 */
const cardId = 'auth-card';

export type AuthCardProps = {
  page: SwitcherPage;
  heading: string;
  text: string;
  children: ReactNode;
  footer?: ReactNode;
};

/** The frame of every account page: back to home, the language link, and the white card. */
export function AuthCard({ page, heading, text, children, footer }: AuthCardProps) {
  const m = useMessages();
  const locale = useLocale();
  const headingId = useId();
  return (
    <main id="main" className="flex min-h-dvh flex-col bg-oasis-950 px-4 py-8 sm:px-6">
      <div className="mx-auto flex w-full max-w-md flex-1 flex-col">
        <FirstPaintAfter id={cardId} />
        <div className="flex items-center justify-between gap-4">
          <a
            href={paths.home.getHref(locale)}
            className={cn(buttonVariants({ variant: 'ghost', size: 'sm' }), 'text-oasis-50')}
          >
            <ArrowLeft aria-hidden="true" className="rtl:-scale-x-100" />
            {m.auth.backToHome}
          </a>
          <LanguageSwitcher page={page} className="min-h-10 px-3 text-sm text-oasis-50 hover:bg-white/10" />
        </div>
        <section
          id={cardId}
          aria-labelledby={headingId}
          className="mt-8 rounded-3xl bg-white p-7 shadow-2xl shadow-black/30 sm:p-9"
          data-testid="auth-card"
        >
          <div className="flex items-center gap-2.5 text-lg font-bold text-oasis-900">
            <BrandMark />
            {m.meta.siteName}
          </div>
          <h1 id={headingId} className="mt-6 text-3xl font-extrabold tracking-tight">
            {heading}
          </h1>
          <p className="mt-2 text-muted">{text}</p>
          {children}
        </section>
        {footer}
      </div>
    </main>
  );
}

/** A status line in the card: `notice` (success, polite) or `error` (alert). */
export function FormMessage({
  id,
  tone,
  children,
  testId,
}: {
  id?: string;
  tone: 'notice' | 'error';
  children: ReactNode;
  testId?: string;
}) {
  const empty = children === '' || children === null || children === undefined || children === false;
  return (
    <div
      id={id}
      role={tone === 'error' ? 'alert' : 'status'}
      aria-live={tone === 'error' ? 'assertive' : 'polite'}
      // Focusable by script only: a failed submit moves focus here (error summary).
      tabIndex={-1}
      data-testid={testId}
      className={cn(
        'rounded-xl text-sm font-medium outline-none',
        tone === 'error' ? 'text-danger' : 'text-oasis-900',
        !empty &&
          (tone === 'error'
            ? 'border border-danger/30 bg-danger-soft px-4 py-3'
            : 'border border-oasis-600/30 bg-oasis-50 px-4 py-3'),
      )}
    >
      {children}
    </div>
  );
}
