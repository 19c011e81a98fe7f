import type { Session, User } from '@supabase/auth-js';
import { useCallback, useEffect, useRef, useState } from 'react';
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
      setAuth(client);
      const { data } = client.onAuthStateChange((_event, next) => {
        setSession(next);
        if (next?.user) setUser((current) => (current?.id === next.user.id ? current : next.user));
      });
      unsubscribe = () => data.subscription.unsubscribe();
    })();
    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }, []);

  const reload = useCallback(async () => {
    if (!auth) return;
    const { data, error } = await auth.getUser();
    if (!error && data.user) setUser(data.user);
  }, [auth]);

  // The user as the service has it, once per session (outside the auth event: auth-js must not be
  // called back from its own callback).
  useEffect(() => {
    const id = session?.user?.id;
    if (!auth || !id || loadedFor.current === id) return;
    loadedFor.current = id;
    void reload();
  }, [auth, session, reload]);

  let state: AccountState;
  if (session === undefined) state = { status: 'loading' };
  else if (!session?.user || needsSecondFactor(session)) state = { status: 'away' };
  else state = { status: 'ready', session, user: user ?? session.user, aal: tokenAal(session.access_token) };
  return { state, auth, reload };
}
