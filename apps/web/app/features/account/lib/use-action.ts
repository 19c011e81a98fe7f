import { useCallback, useState } from 'react';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { notifyError, notifySuccess } from '~/lib/notify.ts';

export type Outcome = { tone: 'notice' | 'error'; text: string };

/**
 * One section's actions: which one is pending (its button shows it, the others wait), and the
 * outcome, shown in the section's live region and in a toast.
 */
export function useAction() {
  const m = useMessages();
  const locale = useLocale();
  const [pending, setPending] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();

  const succeed = useCallback((title: string, text: string) => {
    setOutcome({ tone: 'notice', text });
    notifySuccess(title, text);
  }, []);

  const fail = useCallback(
    (text: string) => {
      setOutcome({ tone: 'error', text });
      notifyError(m.auth.errors.title, text);
    },
    [m],
  );

  /** The service's error in the page's words (spec §8 mapping, Arabic catalog). */
  const errorText = useCallback(
    (error: unknown) => localizedAuthErrorMessage(error, m.auth.errors, locale),
    [m, locale],
  );

  /** Runs `task` as action `name` unless one is pending; an unexpected throw gets the generic text. */
  const run = useCallback(
    async (name: string, task: () => Promise<void>) => {
      if (pending) return;
      setPending(name);
      setOutcome(undefined);
      try {
        await task();
      } catch (error) {
        console.error('Account action failed', error);
        fail(errorText(error));
      } finally {
        setPending(undefined);
      }
    },
    [pending, fail, errorText],
  );

  return { pending, outcome, setOutcome, succeed, fail, errorText, run };
}
