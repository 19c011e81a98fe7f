import type { Deps, RequestMeta } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import { issueEmailToken } from '../../core/email-tokens.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { emailQuota, enforceOtpIpLimit } from '../../core/rate-limit.ts';
import { audit } from '../../db/audit.repo.ts';
import { findUserByEmail, findUserByPendingEmail, updateUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { emailChangeQuota, mailEmailChange } from '../user/index.ts';

/** POST /recover: always `{}` (unknown emails included); the quota counts the address either way. */
export async function requestRecovery(
  deps: Deps,
  rawEmail: string,
  redirectTo: string,
  meta: RequestMeta,
  pkce?: PkceParams,
): Promise<void> {
  const email = parseEmail(rawEmail);
  await enforceOtpIpLimit(deps, meta.ip);
  await emailQuota(deps, email);
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  const now = deps.clock();
  await deps.db.transaction(async (tx) => {
    await updateUser(tx, user.id, { recoverySentAt: now, updatedAt: now });
    await issueEmailToken(deps, tx, {
      userId: user.id,
      type: 'recovery',
      to: email,
      redirectTo,
      pkce,
      locale: mailLocaleFor(redirectTo, deps.config.SITE_URL, user.userMetadata),
      data: user.userMetadata,
    });
    await audit(tx, 'user_recovery_requested', user.id, meta.ip, {});
  });
  deps.mail.kick();
}

/** POST /resend: signup confirmation or email-change confirmation; `{}` whatever the account state. */
export async function resend(
  deps: Deps,
  type: string,
  rawEmail: string | undefined,
  redirectTo: string,
  meta: RequestMeta,
  pkce?: PkceParams,
): Promise<void> {
  if (type !== 'signup' && type !== 'email_change')
    throw new AuthError(
      'validation_failed',
      'Missing one of these types: signup, email_change, sms, phone_change',
    );
  if (rawEmail === undefined) throw new AuthError('validation_failed', 'An email address is required');
  const email = parseEmail(rawEmail);
  await enforceOtpIpLimit(deps, meta.ip);
  await emailQuota(deps, email);
  const now = deps.clock();
  if (type === 'signup') {
    const user = await findUserByEmail(deps.db, email);
    if (!user || user.emailConfirmedAt) return;
    await deps.db.transaction(async (tx) => {
      await updateUser(tx, user.id, { confirmationSentAt: now, updatedAt: now });
      await issueEmailToken(deps, tx, {
        userId: user.id,
        type: 'confirmation',
        to: email,
        redirectTo,
        pkce,
        locale: mailLocaleFor(redirectTo, deps.config.SITE_URL, user.userMetadata),
        data: user.userMetadata,
      });
    });
  } else {
    // The pending new address (what the user typed in updateUser), or the current address of a user
    // with a pending change. Both links are sent afresh and the change needs its confirmations again.
    const user = (await findUserByPendingEmail(deps.db, email)) ?? (await findUserByEmail(deps.db, email));
    const to = user?.emailChange;
    if (!user || !to) return;
    // The requested address is counted above (known or not, alike); the mails go to the pending and
    // possibly the current address, and each is counted against its recipient too.
    await emailChangeQuota(deps, user, to, email);
    await deps.db.transaction(async (tx) => {
      await mailEmailChange(deps, tx, user, to, redirectTo, pkce);
    });
  }
  deps.mail.kick();
}
