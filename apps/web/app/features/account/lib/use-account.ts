import type { Session, User } from '@supabase/auth-js';
import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { needsSecondFactor, tokenAal } from '~/lib/assurance.ts';
import { type AuthClient, getAuthClient } from '~/lib/auth-client.ts';

export type AccountState =
  | { status: 'loading' }
  /** Signed out, or the session still owes its second factor: the page sends the visitor to sign in. */
  | { status: 'away' }
  | { status: 'ready'; session: Session; user: User; aal: string };

/**
 * The signed-in account for the account page: the session (kept current by the client's events)
 * and the user as the service has it now (`getUser`: a pending email change, the factors).
 * `reload()` reads the user again after an action changed it.
 */
export function useAccount(): {
  state: AccountState;
  auth: AuthClient | undefined;
  reload: () => Promise<void>;
} {
  const [session, setSession] = useState<Session | null | undefined>();
  const [user, setUser] = useState<User | undefined>();
  const [auth, setAuth] = useState<AuthClient | undefined>();
  const loadedFor = useRef<string | undefined>(undefined);

  useEffect(() => {
    let cancelled = false;
    let unsubscribe: (() => void) | undefined;
    void (async () => {
      let client: AuthClient;
      try {
        client = await getAuthClient();
      } catch (error) {
        console.error('Could not load the auth client', error);
        if (!cancelled) setSession(null);
        return;
      }
      if (cancelled) return;
      // The page's first account render goes through startTransition: it mounts all five sections at
      // once, which as an ordinary (synchronous) update was one main-thread task of 25-30 ms on the
      // development machine, over 100 ms under Lighthouse's 4× CPU slowdown (blocking time). Inside
      // startTransition React renders it in slices of a few milliseconds and yields in between. Later
      // events (an action's refresh, sign-out) stay ordinary updates, applied at once as before.
      startTransition(() => setAuth(client));
      const { data } = client.onAuthStateChange((event, next) => {
        const apply = () => {
          setSession(next);
          if (next?.user) setUser((current) => (current?.id === next.user.id ? current : next.user));
        };
        if (event === 'INITIAL_SESSION') startTransition(apply);
        else apply();
      });
      unsubscribe = () => data.subscription.unsubscribe();
    })();
    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }, []);

  const read = useCallback(
    async (deferred: boolean) => {
      if (!auth) return;
      const { data, error } = await auth.getUser();
      if (!error && data.user) {
        const user = data.user;
        if (deferred) startTransition(() => setUser(user));
        else setUser(user);
      }
    },
    [auth],
  );
  const reload = useCallback(() => read(false), [read]);

  // The user as the service has it, once per session (outside the auth event: auth-js must not be
  // called back from its own callback); through startTransition, as the first render above.
  useEffect(() => {
    const id = session?.user?.id;
    if (!auth || !id || loadedFor.current === id) return;
    loadedFor.current = id;
    void read(true);
  }, [auth, session, read]);

  let state: AccountState;
  if (session === undefined) state = { status: 'loading' };
  else if (!session?.user || needsSecondFactor(session)) state = { status: 'away' };
  else state = { status: 'ready', session, user: user ?? session.user, aal: tokenAal(session.access_token) };
  return { state, auth, reload };
}
