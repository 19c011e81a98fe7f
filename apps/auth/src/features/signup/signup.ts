import { randomUUID } from 'node:crypto';
import { assertNotBreached } from '../../core/breached-passwords.ts';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import { issueEmailToken } from '../../core/email-tokens.ts';
import { afterUserCreated, beforeUserCreated, candidateUser } from '../../core/hooks/user-hooks.ts';
import type { Session, User } from '../../core/http/response-schemas.ts';
import { MAX_METADATA_BYTES } from '../../core/http/schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { mailLocaleFor, signupLocale } from '../../core/mail/locale.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { assertPasswordAcceptable, passwordPolicyOf } from '../../core/password-policy.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { type ConsentRecord, takeConsent } from '../../core/privacy-consent.ts';
import { emailQuotaLimits, enforceOtpIpLimit, enforceRateLimits, type Limit } from '../../core/rate-limit.ts';
import { fakeUserJson, userJson } from '../../core/user-json.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import {
  findUserByEmail,
  insertEmailUser,
  loadUserRelations,
  type UserRow,
  updateUser,
} from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

export type SignupInput = {
  email?: string | undefined;
  password?: string | undefined;
  data?: Record<string, unknown>;
  pkce?: PkceParams | undefined;
};

/** POST /signup. Returns a bare user (confirmation on) or a session (MAILER_AUTOCONFIRM). */
export async function signUp(
  deps: Deps,
  input: SignupInput,
  redirectTo: string,
  meta: RequestMeta,
): Promise<User | Session> {
  if (deps.config.DISABLE_SIGNUP) throw new AuthError('signup_disabled');
  if (input.email === undefined) throw new AuthError('anonymous_provider_disabled');
  if (!input.password) throw new AuthError('validation_failed', 'Signup requires a valid password');
  assertPasswordAcceptable(input.password, passwordPolicyOf(deps.config), { email: input.email });
  const email = parseEmail(input.email);
  await assertNotBreached(deps, input.password);
  // The language of the confirmation mail, remembered in user_metadata.locale for later mail.
  const { data: given, consent } = takeConsent(
    input.data ?? {},
    deps.config.PRIVACY_NOTICE_VERSION,
    deps.clock(),
  );
  const { locale, metadata: data } = signupLocale(
    given,
    redirectTo,
    deps.config.SITE_URL,
    MAX_METADATA_BYTES,
  );

  await enforceOtpIpLimit(deps, meta.ip);
  const autoconfirm = deps.config.MAILER_AUTOCONFIRM;
  // The global mail quota is counted before the look-up, for every address alike. The recipient's
  // own limits (the floor between two mails, the hourly count) apply only to a sign-up that mails
  // it: a confirmed address gets GoTrue's fake user and no mail, however recently mail went to it
  // (see recipientQuota).
  const quota = emailQuotaLimits(deps, email);
  const window = deps.config.rateLimits.emailWindow;
  if (!autoconfirm) await enforceRateLimits(deps, [quota.global], window);

  const existing = await findUserByEmail(deps.db, email);
  if (!autoconfirm) await recipientQuota(deps, quota.recipient, existing);
  if (existing) {
    // The same argon2 work as a new sign-up, so CPU load does not tell the two apart either; the
    // hash becomes the password of a still-pending sign-up (see repeatedSignup).
    const passwordHash = await hashPassword(input.password);
    return repeatedSignup(
      deps,
      existing.id,
      email,
      data,
      redirectTo,
      meta,
      input.pkce,
      passwordHash,
      consent,
    );
  }

  // Hash before opening the transaction: the slow part never holds a connection or the PGlite lock.
  const passwordHash = await hashPassword(input.password);
  const now = deps.clock();
  const id = randomUUID();
  await beforeUserCreated(
    deps,
    candidateUser({ id, audRole: newUserAudRole(deps.config), provider: 'email', email, data, now }),
    meta.ip,
  );
  try {
    const result = await deps.db.transaction(async (tx) => {
      const { user, identity } = await insertEmailUser(tx, {
        id,
        email,
        passwordHash,
        userMetadata: data,
        consent,
        confirmedAt: autoconfirm ? now : null,
        confirmationSentAt: autoconfirm ? null : now,
        now,
        ...newUserAudRole(deps.config),
      });
      await audit(tx, 'user_signedup', user.id, meta.ip, { provider: 'email' });
      if (!autoconfirm) {
        await issueEmailToken(deps, tx, {
          userId: user.id,
          type: 'confirmation',
          to: email,
          redirectTo,
          pkce: input.pkce,
          locale,
          data,
        });
        return { user, identity, session: undefined };
      }
      const lastSignIn = await updateUser(tx, user.id, { lastSignInAt: now });
      const session = await startSession(deps, tx, lastSignIn, 'password', meta);
      return { user: lastSignIn, identity, session };
    });
    if (!result.session) deps.mail.kick();
    await afterUserCreated(deps, userJson(result.user, [result.identity]), meta.ip);
    if (!result.session) return userJson(result.user, [result.identity]);
    // A new account: its one identity, no factors (no need to read them back).
    return await issueSession(deps, {
      user: result.user,
      session: result.session.session,
      refreshToken: result.session.refreshToken,
      relations: { identities: [result.identity], factors: [] },
      hook: { ip: meta.ip },
    });
  } catch (err) {
    // A concurrent sign-up of the same address won the unique index: answer as for a duplicate,
    // without sending a second email (the winner's is on its way).
    if (isUniqueViolation(err)) {
      const winner = await findUserByEmail(deps.db, email);
      if (winner)
        return repeatedSignup(deps, winner.id, email, data, redirectTo, meta, input.pkce, undefined);
    }
    throw err;
  }
}

/**
 * The recipient limits of a sign-up's mail. An unconfirmed account is mailed a fresh link, so they
 * are enforced (429 over_email_send_rate_limit, as GoTrue's resend frequency). A new address is
 * mailed too, but never refused: no account means no mail has ever gone to it, so its counters can
 * only come from requests that sent nothing (a recover or resend of an unknown address), and refusing
 * it would tell it apart from a confirmed address, which is answered without mail. Its mail is still
 * counted, so a resend straight after sign-up meets the floor. A confirmed address is neither counted
 * nor refused, but its counters are read with the same statements: on a busy database every
 * statement waits its turn, and one path with fewer of them answers measurably sooner
 * (enumeration.test.ts saw ~120 ms between confirmed and new addresses when it skipped them).
 */
async function recipientQuota(deps: Deps, limits: Limit[], existing: UserRow | undefined): Promise<void> {
  const mode = existing?.emailConfirmedAt ? 'look' : existing !== undefined;
  await enforceRateLimits(deps, limits, deps.config.rateLimits.emailWindow, mode);
}

async function repeatedSignup(
  deps: Deps,
  userId: string,
  email: string,
  data: Record<string, unknown>,
  redirectTo: string,
  meta: RequestMeta,
  pkce: PkceParams | undefined,
  /** This sign-up's password hash; undefined when it lost a race to a concurrent one (no new mail). */
  passwordHash: string | undefined,
  /** This sign-up's consent: it replaces the pending one's, like the password and metadata. */
  consent?: ConsentRecord,
): Promise<User> {
  const user = await findUserByEmail(deps.db, email);
  if (!user || user.id !== userId) throw new AuthError('conflict', 'Concurrent sign-up, please retry');
  if (user.emailConfirmedAt) {
    if (deps.config.MAILER_AUTOCONFIRM) throw new AuthError('user_already_exists');
    await audit(deps.db, 'user_repeated_signup', user.id, meta.ip, { provider: 'email' });
    return fakeUserJson(randomUUID(), email, data, deps.clock(), newUserAudRole(deps.config));
  }
  // Unconfirmed: the newest sign-up replaces the pending one, password and metadata included, and
  // its fresh link replaces the earlier one (one confirmation token per account). Keeping the first
  // password instead would let anyone pre-register an address: when its owner later signed up and
  // clicked the link, the account would be confirmed with the stranger's password. This way an
  // account is only ever confirmed with the password of the sign-up whose link was clicked.
  let current = user;
  if (passwordHash) {
    const now = deps.clock();
    current = await deps.db.transaction(async (tx) => {
      const updated = await updateUser(tx, user.id, {
        encryptedPassword: passwordHash,
        userMetadata: data,
        privacyNoticeVersion: consent?.privacyNoticeVersion ?? null,
        privacyNoticeAcceptedAt: consent?.privacyNoticeAcceptedAt ?? null,
        confirmationSentAt: now,
        updatedAt: now,
      });
      // The fresh link follows the flow of this request (PKCE: ?code= for this client's verifier).
      await issueEmailToken(deps, tx, {
        userId: user.id,
        type: 'confirmation',
        to: email,
        redirectTo,
        pkce,
        locale: mailLocaleFor(redirectTo, deps.config.SITE_URL, data),
        data,
      });
      await audit(tx, 'user_confirmation_requested', user.id, meta.ip, {});
      return updated;
    });
    deps.mail.kick();
  }
  const rel = await loadUserRelations(deps.db, current.id);
  return userJson(current, rel.identities, rel.factors);
}
