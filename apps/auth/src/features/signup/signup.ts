import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import { issueEmailToken } from '../../core/email-tokens.ts';
import type { Session, User } from '../../core/http/response-schemas.ts';
import { MAX_METADATA_BYTES } from '../../core/http/schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { mailLocaleFor, signupLocale } from '../../core/mail/locale.ts';
import { assertPasswordAcceptable, passwordPolicyOf } from '../../core/password-policy.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { emailQuota, enforceOtpIpLimit } from '../../core/rate-limit.ts';
import { fakeUserJson, userJson } from '../../core/user-json.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import { findUserByEmail, insertEmailUser, loadUserRelations, updateUser } from '../../db/users.repo.ts';
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
  // The language of the confirmation mail, remembered in user_metadata.locale for later mail.
  const { locale, metadata: data } = signupLocale(
    input.data ?? {},
    redirectTo,
    deps.config.SITE_URL,
    MAX_METADATA_BYTES,
  );

  await enforceOtpIpLimit(deps, meta.ip);
  const autoconfirm = deps.config.MAILER_AUTOCONFIRM;
  if (!autoconfirm) await emailQuota(deps, email);

  const existing = await findUserByEmail(deps.db, email);
  if (existing) {
    // The same argon2 work as a new sign-up, so CPU load does not tell the two apart either; the
    // hash becomes the password of a still-pending sign-up (see repeatedSignup).
    const passwordHash = await hashPassword(input.password);
    return repeatedSignup(deps, existing.id, email, data, redirectTo, meta, input.pkce, passwordHash);
  }

  // Hash before opening the transaction: the slow part never holds a connection or the PGlite lock.
  const passwordHash = await hashPassword(input.password);
  const now = deps.clock();
  try {
    const result = await deps.db.transaction(async (tx) => {
      const { user, identity } = await insertEmailUser(tx, {
        email,
        passwordHash,
        userMetadata: data,
        confirmedAt: autoconfirm ? now : null,
        confirmationSentAt: autoconfirm ? null : now,
        now,
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
    if (!result.session) {
      deps.mail.kick();
      return userJson(result.user, [result.identity]);
    }
    // A new account: its one identity, no factors (no need to read them back).
    return await issueSession(deps, {
      user: result.user,
      session: result.session.session,
      refreshToken: result.session.refreshToken,
      relations: { identities: [result.identity], factors: [] },
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
): Promise<User> {
  const user = await findUserByEmail(deps.db, email);
  if (!user || user.id !== userId) throw new AuthError('conflict', 'Concurrent sign-up, please retry');
  if (user.emailConfirmedAt) {
    if (deps.config.MAILER_AUTOCONFIRM) throw new AuthError('user_already_exists');
    await audit(deps.db, 'user_repeated_signup', user.id, meta.ip, { provider: 'email' });
    return fakeUserJson(randomUUID(), email, data, deps.clock());
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
