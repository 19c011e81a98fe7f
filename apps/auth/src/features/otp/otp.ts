// Passwordless sign-in by email (POST /otp): one mail carries a link and a 6-digit code, verified
// through /verify (type magiclink or email). GoTrue's routing: an address with a confirmed account
// gets a magic link; an unknown or still-unconfirmed address gets a sign-up confirmation (its link
// and code sign in too), or, under MAILER_AUTOCONFIRM, a confirmed account and a magic link.
import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import { issueEmailToken } from '../../core/email-tokens.ts';
import { afterUserCreated, beforeUserCreated, candidateUser } from '../../core/hooks/user-hooks.ts';
import { MAX_METADATA_BYTES } from '../../core/http/schemas.ts';
import { mailLocaleFor, signupLocale } from '../../core/mail/locale.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { emailQuota, enforceOtpIpLimit } from '../../core/rate-limit.ts';
import { userJson } from '../../core/user-json.ts';
import { audit } from '../../db/audit.repo.ts';
import { type DbOrTx, isUniqueViolation } from '../../db/client.ts';
import { findUserByEmail, insertEmailUser, type UserRow, updateUser } from '../../db/users.repo.ts';
import { mayCreateOtpAccount } from './unknown-account.ts';

export type EmailOtpInput = {
  email: string;
  /** `create_user` (the client's `shouldCreateUser`, default true). */
  createUser: boolean;
  /** Metadata of an account this request creates (ignored for an existing account, as GoTrue). */
  data: Record<string, unknown>;
  pkce?: PkceParams | undefined;
};

/**
 * POST /otp with an email. Answers nothing: the caller replies `{}` whatever happened, under the
 * response floor, so an unknown address (create_user false, or sign-ups closed) looks exactly like
 * a known one. GoTrue answers 422 otp_disabled there instead, which tells anyone which addresses
 * have accounts (README, "Differences from GoTrue"); OTP_REVEAL_UNKNOWN_USERS restores that answer.
 */
export async function requestEmailOtp(
  deps: Deps,
  request: EmailOtpInput,
  redirectTo: string,
  meta: RequestMeta,
): Promise<void> {
  const email = parseEmail(request.email);
  // A new account's metadata, with the language of its mail remembered as a sign-up's is.
  const { metadata } = signupLocale(request.data, redirectTo, deps.config.SITE_URL, MAX_METADATA_BYTES);
  const input = { ...request, data: metadata };
  // Counted before the look-up, so known and unknown addresses spend the same budgets.
  await enforceOtpIpLimit(deps, meta.ip);
  await emailQuota(deps, email);
  const existing = await findUserByEmail(deps.db, email);
  if (!existing) {
    if (!mayCreateOtpAccount(deps.config, input.createUser)) return;
    const id = randomUUID();
    await beforeUserCreated(
      deps,
      candidateUser({
        id,
        audRole: newUserAudRole(deps.config),
        provider: 'email',
        email,
        data: input.data,
        now: deps.clock(),
      }),
      meta.ip,
    );
    try {
      const created = await deps.db.transaction(async (tx) => {
        const user = await insertPasswordlessUser(deps, tx, id, email, input.data, meta);
        await mailOtp(deps, tx, user, { ...input, email }, redirectTo, meta);
        return user;
      });
      deps.mail.kick();
      await afterUserCreated(deps, userJson(created, []), meta.ip);
    } catch (err) {
      // A concurrent request created the address first: its mail is on the way; answer alike.
      if (isUniqueViolation(err)) return;
      throw err;
    }
  } else {
    await deps.db.transaction(async (tx) => {
      let user = existing;
      if (!user.emailConfirmedAt) {
        // A pending sign-up: the fresh confirmation below replaces the earlier link, and the
        // password and metadata go: whoever follows this link proves the mailbox, and must not end
        // up in an account whose password a stranger chose when pre-registering the address (the
        // rule of a repeated sign-up, signup.ts).
        user = await updateUser(tx, user.id, {
          encryptedPassword: null,
          userMetadata: input.data,
          updatedAt: deps.clock(),
        });
      }
      await mailOtp(deps, tx, user, { ...input, email }, redirectTo, meta);
    });
  }
  deps.mail.kick();
}

/**
 * Writes the mail (in the caller's transaction): a magic link to a confirmed account, a sign-up
 * confirmation to a pending one. Both carry a link and a 6-digit code, and both sign in.
 */
async function mailOtp(
  deps: Deps,
  tx: DbOrTx,
  user: UserRow,
  input: EmailOtpInput,
  redirectTo: string,
  meta: RequestMeta,
): Promise<void> {
  const confirmed = user.emailConfirmedAt !== null;
  const type = confirmed ? 'magiclink' : 'confirmation';
  if (!confirmed) await updateUser(tx, user.id, { confirmationSentAt: deps.clock() });
  await issueEmailToken(deps, tx, {
    userId: user.id,
    type,
    to: input.email,
    redirectTo,
    pkce: input.pkce,
    locale: mailLocaleFor(redirectTo, deps.config.SITE_URL, user.userMetadata),
    data: user.userMetadata,
  });
  await audit(tx, confirmed ? 'user_recovery_requested' : 'user_confirmation_requested', user.id, meta.ip, {
    method: 'otp',
  });
}

/**
 * A new account without a password (it signs in by link or code, and may set a password later
 * through PUT /user), confirmed at once under MAILER_AUTOCONFIRM. A duplicate address raises a
 * unique violation.
 */
async function insertPasswordlessUser(
  deps: Deps,
  tx: DbOrTx,
  id: string,
  email: string,
  data: Record<string, unknown>,
  meta: RequestMeta,
): Promise<UserRow> {
  const now = deps.clock();
  const autoconfirm = deps.config.MAILER_AUTOCONFIRM;
  const { user } = await insertEmailUser(tx, {
    id,
    email,
    passwordHash: null,
    userMetadata: data,
    confirmedAt: autoconfirm ? now : null,
    confirmationSentAt: null,
    now,
    ...newUserAudRole(deps.config),
  });
  await audit(tx, 'user_signedup', user.id, meta.ip, { provider: 'email', method: 'otp' });
  return user;
}
