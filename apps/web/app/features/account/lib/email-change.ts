import type { User } from '@supabase/auth-js';

/**
 * What happened to a requested email change, read from the user the service answered with:
 * - `changed`: the new address is already the account's (an anonymous account's first address
 *   under MAILER_AUTOCONFIRM, or a service that applies changes at once);
 * - `both`: links went to the current and the new address, and both must be opened (GoTrue's
 *   secure email change);
 * - `new`: only the new address was sent a link (secure change off, MAILER_AUTOCONFIRM, or an
 *   account without a current address).
 */
export type EmailChangeOutcome = 'changed' | 'both' | 'new';

export function emailChangeOutcome(
  requested: string,
  /** The account's address before the request. */
  before: string | undefined,
  answered: Pick<User, 'email'>,
  /** The service's settings say both addresses confirm (undefined: not known, GoTrue's default). */
  asksBoth: boolean | undefined,
): EmailChangeOutcome {
  if ((answered.email ?? '').toLowerCase() === requested.toLowerCase()) return 'changed';
  return asksBoth !== false && before ? 'both' : 'new';
}

/** Whether a pending change (`new_email`) waits for both addresses' links, or the new one's only. */
export function pendingAsksBoth(user: Pick<User, 'email'>, asksBoth: boolean | undefined): boolean {
  return asksBoth !== false && !!user.email;
}
