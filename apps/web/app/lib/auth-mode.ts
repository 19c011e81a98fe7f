import type { AuthMode } from '~/config/paths.ts';

/** Spec §2: `?mode=signup` opens sign-up; any other value, or none, opens sign-in. */
export function parseAuthMode(search: string | URLSearchParams): AuthMode {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  return params.get('mode') === 'signup' ? 'signup' : 'signin';
}

export function otherMode(mode: AuthMode): AuthMode {
  return mode === 'signup' ? 'signin' : 'signup';
}
