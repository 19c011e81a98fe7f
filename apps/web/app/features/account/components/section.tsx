import { type ReactNode, useId } from 'react';
import type { Outcome } from '~/features/account/lib/use-action.ts';
import { FormMessage } from '~/features/auth/components/auth-card.tsx';
import { sixDigitCode } from '~/lib/digits.ts';

/**
 * One part of the account page: a card with its heading, and its live region, where the outcome of
 * the section's last action is said (the toast says it too, but disappears).
 */
export function Section({
  name,
  heading,
  text,
  outcome,
  children,
}: {
  name: string;
  heading: string;
  text?: string;
  outcome?: Outcome | undefined;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <section
      aria-labelledby={headingId}
      className="rounded-3xl bg-white p-7 shadow-2xl shadow-black/30 sm:p-9"
      data-testid={`account-${name}`}
    >
      <h2 id={headingId} className="text-xl font-bold">
        {heading}
      </h2>
      {text ? <p className="mt-2 text-muted">{text}</p> : null}
      <div className="mt-6 space-y-5">
        {children}
        {/* Both regions always present (empty when quiet), so a screen reader hears what is put in. */}
        <FormMessage tone="notice" testId={`account-${name}-notice`}>
          {outcome?.tone === 'notice' ? outcome.text : ''}
        </FormMessage>
        <FormMessage tone="error" testId={`account-${name}-error`}>
          {outcome?.tone === 'error' ? outcome.text : ''}
        </FormMessage>
      </div>
    </section>
  );
}

/**
 * The six digits typed into a code form (spaces dropped, Arabic-Indic and Persian digits made ASCII),
 * or undefined when it is not six digits.
 */
export function sixDigits(form: HTMLFormElement): string | undefined {
  return sixDigitCode(String(new FormData(form).get('code') ?? ''));
}
