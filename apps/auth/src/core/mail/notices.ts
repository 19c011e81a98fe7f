// Security notices to an account's owner (no link, no code): repeated wrong second-factor codes, a
// recovery code spent, the account deleted. Like every mail they wait in the outbox; with the
// send-email hook on they go to the hook, as GoTrue sends its own notifications
// (`password_changed_notification`, `mfa_factor_enrolled_notification`…) through it.
import type { DbOrTx } from '../../db/client.ts';
import { enqueueMail } from '../../db/outbox.repo.ts';
import type { UserRow } from '../../db/users.repo.ts';
import type { Deps } from '../deps.ts';
import { type HookEmailData, hookEmailData } from '../hooks/send-hooks.ts';
import { userJson } from '../user-json.ts';
import { mailLocaleFor } from './locale.ts';
import type { MailKind, RenderedMail } from './templates.ts';

export type SecurityNoticeKind = Extract<
  MailKind,
  'mfa_verification_failures' | 'mfa_recovery_code_used' | 'account_deleted'
>;

/**
 * The send-email hook's `email_action_type` for each notice. GoTrue has no notification for any of
 * these three, so the names are ours, in GoTrue's `<event>_notification` form (README, auth hooks).
 */
export const NOTICE_ACTION_TYPE: Record<SecurityNoticeKind, string> = {
  mfa_verification_failures: 'mfa_verification_failures_notification',
  mfa_recovery_code_used: 'mfa_recovery_code_used_notification',
  account_deleted: 'account_deleted_notification',
};

/**
 * A security notice in the language remembered on the user: a notice answers no page of the site,
 * so there is no request language to go by.
 */
function renderSecurityNotice(
  deps: Deps,
  user: Pick<UserRow, 'email' | 'userMetadata'>,
  kind: SecurityNoticeKind,
  values: { Failures?: number } = {},
): RenderedMail {
  const locale = mailLocaleFor(undefined, deps.config.SITE_URL, user.userMetadata);
  return deps.mailTemplates.render(kind, locale, {
    ConfirmationURL: '',
    Token: '',
    TokenHash: '',
    SiteURL: deps.config.SITE_URL,
    RedirectTo: deps.config.SITE_URL,
    Email: user.email ?? '',
    NewEmail: '',
    Data: { ...user.userMetadata, locale },
    ...values,
  });
}

/**
 * Writes a notice to `user.email` into the outbox, in the caller's transaction (kick the dispatcher
 * after commit). With the send-email hook on, GoTrue's email_data rides with it, so the hook
 * delivers it instead of SMTP. `accountGone`: the account is being deleted in this transaction, so
 * the row keeps no user id and the hook is sent the user as it was (it needs the address).
 */
export async function queueSecurityNotice(
  deps: Deps,
  tx: DbOrTx,
  user: UserRow,
  kind: SecurityNoticeKind,
  opts: { values?: { Failures?: number }; factorType?: string; accountGone?: boolean } = {},
): Promise<void> {
  if (!user.email) return;
  const mail = renderSecurityNotice(deps, user, kind, opts.values);
  let hookData: (HookEmailData & { user?: unknown }) | undefined;
  if (deps.config.hooks.SEND_EMAIL) {
    hookData = hookEmailData({
      email_action_type: NOTICE_ACTION_TYPE[kind],
      site_url: deps.config.SITE_URL,
      redirect_to: deps.config.SITE_URL,
      factor_type: opts.factorType ?? '',
    });
    if (opts.accountGone) hookData.user = userJson(user, []);
  }
  await enqueueMail(tx, {
    userId: opts.accountGone ? null : user.id,
    kind,
    to: user.email,
    ...mail,
    hookEmailData: hookData,
  });
}
