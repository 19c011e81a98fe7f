/** The parts of an auth-js session the assurance check reads. */
export type SessionLike = {
  access_token: string;
  user: { factors?: ReadonlyArray<{ status: string }> | null | undefined };
};

/** The `aal` claim of an access token (`aal1` when absent or unreadable). */
export function tokenAal(accessToken: string): string {
  try {
    const payload = accessToken.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const aal = (JSON.parse(json) as { aal?: unknown }).aal;
    return typeof aal === 'string' ? aal : 'aal1';
  } catch {
    return 'aal1';
  }
}

/**
 * True when the session still owes its second factor: the account has a verified factor (the next
 * level is aal2, as `mfa.getAuthenticatorAssuranceLevel` says) and the token is not aal2 yet. Such a
 * visitor is not counted as signed in (no nav email, no redirect, no "Welcome back!") until the code
 * or the security key is verified. Read from the session itself, because auth-js must not be called
 * back from inside `onAuthStateChange` (it would wait on its own lock).
 */
export function needsSecondFactor(session: SessionLike): boolean {
  const verified = (session.user.factors ?? []).some((factor) => factor.status === 'verified');
  return verified && tokenAal(session.access_token) !== 'aal2';
}
