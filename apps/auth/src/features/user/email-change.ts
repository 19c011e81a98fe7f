import type { Deps } from '../../core/deps.ts';
import { issueEmailToken } from '../../core/email-tokens.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { emailQuota } from '../../core/rate-limit.ts';
import type { DbOrTx } from '../../db/client.ts';
import { deleteUserTokens } from '../../db/one-time-tokens.repo.ts';
import { type UserRow, updateUser } from '../../db/users.repo.ts';

/** GoTrue's answer (POST /verify) and redirect message (GET /verify) for the first of two confirmations. */
export const EMAIL_CHANGE_HALF_CONFIRMED =
  'Confirmation link accepted. Please proceed to confirm link sent to the other email';

/**
 * Secure email change (GoTrue's default, `MAILER_SECURE_EMAIL_CHANGE_ENABLED`): the current address
 * must confirm as well as the new one. As in GoTrue it does not apply under MAILER_AUTOCONFIRM (a
 * development setting where addresses are not proven at all).
 */
function needsBothConfirmations(deps: Deps, user: UserRow): boolean {
  return deps.config.MAILER_SECURE_EMAIL_CHANGE_ENABLED && !deps.config.MAILER_AUTOCONFIRM && !!user.email;
}

/** Every address mailEmailChange writes to: the new one and, when both must confirm, the current one. */
function emailChangeRecipients(deps: Deps, user: UserRow, newEmail: string): string[] {
  return needsBothConfirmations(deps, user) && user.email ? [newEmail, user.email] : [newEmail];
}

/**
 * Counts each mail of an email change against the quota of the address it goes to, whoever asked
 * (`counted`: an address the caller has already counted for this request). Keyed on the requester
 * instead, two accounts that both name a victim as their new address could each mail it up to the
 * limit through /resend. Runs before mailEmailChange's transaction (the counters are written outside it).
 */
export async function emailChangeQuota(
  deps: Deps,
  user: UserRow,
  newEmail: string,
  counted?: string,
): Promise<void> {
  for (const to of emailChangeRecipients(deps, user, newEmail))
    if (to !== counted) await emailQuota(deps, to);
}

/**
 * Starts (or restarts, for /resend) a change of the user's email to `newEmail`, in the caller's
 * transaction: records it as pending, mails a link to the new address and, when both must confirm,
 * one to the current address. The confirmation count is set so that the change applies at 2: from 0
 * when both links are needed, from 1 when only the new address's is. Earlier links of the change
 * are replaced.
 */
export async function mailEmailChange(
  deps: Deps,
  tx: DbOrTx,
  user: UserRow,
  newEmail: string,
  redirectTo: string,
  pkce: PkceParams | undefined,
): Promise<UserRow> {
  const now = deps.clock();
  const both = needsBothConfirmations(deps, user);
  const row = await updateUser(tx, user.id, {
    emailChange: newEmail,
    emailChangeSentAt: now,
    emailChangeConfirmStatus: both ? 0 : 1,
    updatedAt: now,
  });
  // Both halves in one language: the page that asked, else the user's remembered one.
  const locale = mailLocaleFor(redirectTo, deps.config.SITE_URL, user.userMetadata);
  const mail = { locale, data: user.userMetadata, email: user.email ?? undefined, newEmail };
  await issueEmailToken(deps, tx, {
    userId: user.id,
    type: 'email_change_new',
    to: newEmail,
    redirectTo,
    pkce,
    ...mail,
  });
  if (both && user.email)
    await issueEmailToken(deps, tx, {
      userId: user.id,
      type: 'email_change_current',
      to: user.email,
      redirectTo,
      pkce,
      ...mail,
    });
  else await deleteUserTokens(tx, user.id, ['email_change_current']);
  return row;
}
