import type { LandingOutcome } from '~/lib/auth-landing.ts';

/**
 * What the auth page says on arrival from an email link that did not sign in here: the address is
 * confirmed (the link was opened in another browser), or the link expired / was used, or is invalid.
 * Passed in the navigation's state (not the URL), so a reload or a shared URL shows a plain page.
 */
export type AuthNotice = 'confirmed' | 'expired' | 'invalid' | 'provider' | 'provider-email';

const NOTICES: readonly unknown[] = ['confirmed', 'expired', 'invalid', 'provider', 'provider-email'];

export function noticeFor(outcome: LandingOutcome): AuthNotice | undefined {
  if (outcome.kind === 'no-session') return 'confirmed';
  if (outcome.kind === 'link-failed') return outcome.problem;
  return undefined;
}

export function noticeFromState(state: unknown): AuthNotice | undefined {
  const notice = state && typeof state === 'object' && 'notice' in state ? state.notice : undefined;
  return NOTICES.includes(notice) ? (notice as AuthNotice) : undefined;
}
