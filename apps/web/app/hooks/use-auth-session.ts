import { useEffect, useState } from 'react';
import { needsSecondFactor } from '~/lib/assurance.ts';
import { type AuthClient, getAuthClient, hasAuthStateToRestore } from '~/lib/auth-client.ts';
import { storedSessionKeyPattern } from '~/lib/runtime-config.ts';

export type AuthSessionState =
  | { status: 'unknown' }
  | { status: 'signed-out' }
  /** Password accepted, second factor still owed: shown as signed out except by the auth page. */
  | { status: 'needs-mfa'; email: string }
  | { status: 'signed-in'; email: string };

/**
 * The visitor's session, read after hydration. The first render is always 'unknown' (rendered like
 * signed-out) so prerendered HTML and the first client render match.
 *
 * `eager` (auth page) also loads the auth client at the first interaction. Otherwise (home page)
 * it is loaded only when there is something to restore: a stored session, an auth redirect in the
 * URL (an email link lands on `/?code=...`, or with an error), or a session written by another
 * tab later. Signed-out visitors of the home page never download the auth client.
 */
export function useAuthSession({ eager = false }: { eager?: boolean } = {}): AuthSessionState {
  const [state, setState] = useState<AuthSessionState>({ status: 'unknown' });

  useEffect(() => {
    let cancelled = false;
    let unsubscribe: (() => void) | undefined;

    const connect = async () => {
      let auth: AuthClient;
      try {
        auth = await getAuthClient();
      } catch (error) {
        console.error('Could not load the auth client', error);
        if (!cancelled) setState({ status: 'signed-out' });
        return;
      }
      if (cancelled) return;
      const { data } = auth.onAuthStateChange((_event, session) => {
        // Called for INITIAL_SESSION too, once the client has read storage and the URL.
        const email = session?.user?.email ?? '';
        setState(
          !session?.user
            ? { status: 'signed-out' }
            : needsSecondFactor(session)
              ? { status: 'needs-mfa', email }
              : { status: 'signed-in', email },
        );
      });
      unsubscribe = () => data.subscription.unsubscribe();
    };

    const onStorage = (event: StorageEvent) => {
      if (event.key && storedSessionKeyPattern.test(event.key) && event.newValue) {
        window.removeEventListener('storage', onStorage);
        void connect();
      }
    };

    // The auth page connects at the first interaction with it (the submit handler also loads the
    // client), so a visitor who only looks at the page does not pay for the client up front.
    const interactions = ['pointerdown', 'keydown', 'focusin', 'touchstart'] as const;
    const onInteraction = () => {
      for (const type of interactions) window.removeEventListener(type, onInteraction, true);
      window.removeEventListener('storage', onStorage);
      void connect();
    };

    if (hasAuthStateToRestore()) {
      void connect();
    } else {
      setState({ status: 'signed-out' });
      window.addEventListener('storage', onStorage);
      if (eager) for (const type of interactions) window.addEventListener(type, onInteraction, true);
    }
    return () => {
      cancelled = true;
      for (const type of interactions) window.removeEventListener(type, onInteraction, true);
      window.removeEventListener('storage', onStorage);
      unsubscribe?.();
    };
  }, [eager]);

  return state;
}
