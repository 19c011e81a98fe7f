import type { UserRow } from '../../db/users.repo.ts';
import type { Deps } from '../deps.ts';
import { mailLocaleFor } from './locale.ts';
import type { MailKind, RenderedMail } from './templates.ts';

/**
 * A security notice to the account's owner (no link, no code), in the language remembered on the
 * user: a notice answers no page of the site, so there is no request language to go by.
 */
export function renderSecurityNotice(
  deps: Deps,
  user: Pick<UserRow, 'email' | 'userMetadata'>,
  kind: Extract<MailKind, 'mfa_verification_failures' | 'mfa_recovery_code_used' | 'account_deleted'>,
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
