import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/**
 * False during prerendering and the hydrating render, true afterwards. Lets a component render
 * exactly the prerendered markup first (no hydration mismatch), then switch to client-only state.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
