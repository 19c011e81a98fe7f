import { hmac, randomOtp, randomToken, sha256 } from '../crypto/tokens.ts';
import type { DbOrTx } from '../db/client.ts';
import { type OneTimeTokenType, replaceOneTimeToken } from '../db/one-time-tokens.repo.ts';
import { enqueueMail } from '../db/outbox.repo.ts';
import { apiExternalUrl } from './api-url.ts';
import type { Deps } from './deps.ts';
import { hookEmailData } from './hooks/send-hooks.ts';
import type { MailLocale } from './mail/locale.ts';
import type { MailKind } from './mail/templates.ts';
import { createFlowState, type PkceParams } from './pkce.ts';

export const PKCE_LINK_PREFIX = 'pkce_';

/** The keyed hash of a 6-digit code, bound to the address and token type. */
export function otpHash(deps: Deps, type: OneTimeTokenType, address: string, code: string): string {
  return hmac(deps.secrets.otp, `${type}:${address}:${code}`);
}

const verifyType: Record<OneTimeTokenType, string> = {
  confirmation: 'signup',
  recovery: 'recovery',
  magiclink: 'magiclink',
  sms: 'sms',
  phone_change: 'phone_change',
  email_change_new: 'email_change',
  email_change_current: 'email_change',
  reauthentication: 'reauthentication',
};
/** GoTrue's email_action_type for each token type. */
const linkType: Partial<Record<OneTimeTokenType, string>> = {
  confirmation: 'signup',
  recovery: 'recovery',
  magiclink: 'magiclink',
  email_change_new: 'email_change',
  email_change_current: 'email_change',
  reauthentication: 'reauthentication',
};
const mailKind: Record<OneTimeTokenType, MailKind> = {
  confirmation: 'confirmation',
  recovery: 'recovery',
  magiclink: 'magic_link',
  sms: 'confirmation', // never mailed: phone codes go out by SMS (features/otp/phone.ts)
  phone_change: 'confirmation', // never mailed either
  email_change_new: 'email_change',
  email_change_current: 'email_change_current',
  reauthentication: 'reauthentication',
};

/**
 * Creates a one-time token (link + 6-digit code, both stored hashed) and writes the email to the
 * outbox, in the caller's transaction. The dispatcher sends it after commit.
 * The link is built from SITE_URL (never from request headers).
 */
export async function issueEmailToken(
  deps: Deps,
  tx: DbOrTx,
  p: {
    userId: string;
    type: OneTimeTokenType;
    to: string;
    redirectTo: string;
    pkce?: PkceParams | undefined;
    /** The language of the message (core/mail/locale.ts: mailLocaleFor, signupLocale). */
    locale: MailLocale;
    /** The user's user_metadata: the templates' `.Data`. */
    data: unknown;
    /** The account's current address (`.Email`; defaults to `to`): differs from `to` for an email change's new address. */
    email?: string | undefined;
    /** The address an email change moves to (`.NewEmail`). */
    newEmail?: string | undefined;
    /** Mail the 6-digit code only (a reauthentication nonce): no link, whose token stays unusable. */
    codeOnly?: boolean;
    /** The link's `type` when it differs from the token type's own (an invite is a confirmation token). */
    linkType?: string | undefined;
    /** The mail to write when it differs from the token type's own (the invitation). */
    mailKind?: MailKind | undefined;
    /** false: write no mail, only hand back the link and code (the admin API's generate_link). */
    deliver?: boolean;
  },
): Promise<{ token: string; code: string; link: string | undefined }> {
  const now = deps.clock();
  // PKCE: the link will redirect with ?code= for this flow instead of tokens in the fragment.
  const flowStateId = p.pkce ? await createFlowState(deps, tx, p.userId, p.type, p.pkce) : undefined;
  // GoTrue marks PKCE links with this prefix; GET /verify then also reports errors in the query
  // string, where a server-side PKCE callback looks (the token row may be gone by then).
  const token = p.pkce ? `${PKCE_LINK_PREFIX}${randomToken(32)}` : randomToken(32);
  const code = randomOtp();
  await replaceOneTimeToken(tx, {
    userId: p.userId,
    type: p.type,
    tokenHash: sha256(token),
    otpHash: otpHash(deps, p.type, p.to, code),
    relatesTo: p.to,
    redirectTo: p.redirectTo,
    expiresAt: new Date(now.getTime() + deps.config.MAILER_OTP_EXP * 1000),
    now,
    flowStateId,
  });
  let link: URL | undefined;
  if (!p.codeOnly) {
    link = new URL(`${apiExternalUrl(deps.config)}/verify`);
    link.searchParams.set('token', token);
    link.searchParams.set('type', p.linkType ?? verifyType[p.type]);
    link.searchParams.set('redirect_to', p.redirectTo);
  }
  const data = p.data !== null && typeof p.data === 'object' ? (p.data as Record<string, unknown>) : {};
  if (p.deliver === false) return { token, code, link: link?.href };
  const kind = p.mailKind ?? mailKind[p.type];
  const mail = deps.mailTemplates.render(kind, p.locale, {
    ConfirmationURL: link?.href ?? '',
    Token: code,
    TokenHash: link ? token : '',
    SiteURL: deps.config.SITE_URL,
    RedirectTo: p.redirectTo,
    Email: p.email ?? p.to,
    NewEmail: p.newEmail ?? '',
    // A template can branch on the language (`{{ if eq .Data.locale "ar" }}`) even when it was
    // taken from the request's page rather than remembered on the user.
    Data: { ...data, locale: p.locale },
  });
  // With the send-email hook on, GoTrue's email_data rides with the message for the dispatcher.
  const hookData = deps.config.hooks.SEND_EMAIL
    ? hookEmailData({
        token: code,
        token_hash: link ? token : '',
        redirect_to: p.redirectTo,
        email_action_type: p.mailKind === 'invite' ? 'invite' : (linkType[p.type] ?? p.type),
        site_url: deps.config.SITE_URL,
      })
    : undefined;
  await enqueueMail(tx, { userId: p.userId, kind, to: p.to, ...mail, hookEmailData: hookData });
  return { token, code, link: link?.href };
}
