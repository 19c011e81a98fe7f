// POST /signup with a phone and a password (signUp({ phone, password })), behind
// EXTERNAL_PHONE_ENABLED: the account is confirmed by an SMS code (verifyOtp type sms), or at once
// under SMS_AUTOCONFIRM, which signs it in. The rules mirror the email sign-up's (signup.ts): a
// number already confirmed answers GoTrue's fake user (or user_already_exists under autoconfirm),
// and a pending sign-up is taken over by the newest one, password included.
import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { afterUserCreated, beforeUserCreated, candidateUser } from '../../core/hooks/user-hooks.ts';
import type { Session, User } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { assertPasswordAcceptable, passwordPolicyOf } from '../../core/password-policy.ts';
import { parsePhone } from '../../core/phone.ts';
import { takeConsent } from '../../core/privacy-consent.ts';
import { enforceOtpIpLimit } from '../../core/rate-limit.ts';
import { fakeUserJson, userJson } from '../../core/user-json.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import type { AudRole } from '../../db/users.repo.ts';
import {
  confirmPhone,
  findUserByPhone,
  insertPhoneUser,
  loadUserRelations,
  type UserRow,
  updateUser,
} from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { assertPhoneEnabled, enforcePhoneFloor, parseChannel, sendPhoneCode } from '../otp/index.ts';

export type PhoneSignupInput = {
  phone: string;
  password: string | undefined;
  data: Record<string, unknown>;
  channel: string | undefined;
  hasPkce: boolean;
};

/** Returns a bare user (an SMS code is on its way) or, under SMS_AUTOCONFIRM, a session. */
export async function signUpWithPhone(
  deps: Deps,
  input: PhoneSignupInput,
  meta: RequestMeta,
): Promise<User | Session> {
  // GoTrue's order: the parameters (password strength, channel, PKCE), the switch, the number.
  if (deps.config.DISABLE_SIGNUP) throw new AuthError('signup_disabled');
  if (!input.password) throw new AuthError('validation_failed', 'Signup requires a valid password');
  assertPasswordAcceptable(input.password, passwordPolicyOf(deps.config), {});
  const channel = parseChannel(deps, input.channel);
  if (input.hasPkce) throw new AuthError('validation_failed', 'PKCE not supported for phone signups');
  assertPhoneEnabled(deps, 'Phone signups are disabled');
  const phone = parsePhone(input.phone);
  const autoconfirm = deps.config.phone.autoconfirm;
  const { data, consent } = takeConsent(input.data, deps.config.PRIVACY_NOTICE_VERSION, deps.clock());

  await enforceOtpIpLimit(deps, meta.ip);
  // The per-number floor is counted for every number alike, before the look-up (as POST /otp).
  if (!autoconfirm) await enforcePhoneFloor(deps, phone);
  // The same argon2 work whatever the number's state, so timing does not tell them apart.
  const passwordHash = await hashPassword(input.password);
  const existing = await findUserByPhone(deps.db, phone);
  if (existing?.phoneConfirmedAt) {
    if (autoconfirm || deps.config.MAILER_AUTOCONFIRM) throw new AuthError('user_already_exists');
    await audit(deps.db, 'user_repeated_signup', existing.id, meta.ip, { provider: 'phone' });
    return fakePhoneUser(randomUUID(), phone, data, deps.clock(), newUserAudRole(deps.config));
  }
  const now = deps.clock();
  // A new account is shown to before_user_created first, outside the transaction (as the email
  // sign-up does); a pending one taken over by this sign-up is not new, so neither hook runs for it.
  const newId = existing ? undefined : randomUUID();
  if (newId)
    await beforeUserCreated(
      deps,
      candidateUser({ id: newId, audRole: newUserAudRole(deps.config), provider: 'phone', phone, data, now }),
      meta.ip,
    );
  let user: UserRow;
  try {
    user = await deps.db.transaction(async (tx) => {
      if (existing) {
        // Pending: the newest sign-up replaces the earlier one's password and metadata (see
        // signup.ts, repeatedSignup: a stranger who pre-registered a number must not end up holding
        // the password of the account its owner confirms).
        const updated = await updateUser(tx, existing.id, {
          encryptedPassword: passwordHash,
          userMetadata: data,
          privacyNoticeVersion: consent?.privacyNoticeVersion ?? null,
          privacyNoticeAcceptedAt: consent?.privacyNoticeAcceptedAt ?? null,
          confirmationSentAt: autoconfirm ? existing.confirmationSentAt : now,
          updatedAt: now,
        });
        await audit(tx, 'user_confirmation_requested', existing.id, meta.ip, { provider: 'phone' });
        return autoconfirm ? confirmPhone(tx, updated, now) : updated;
      }
      const created = await insertPhoneUser(tx, {
        id: newId,
        phone,
        userMetadata: data,
        consent,
        now,
        passwordHash,
        ...newUserAudRole(deps.config),
      });
      await audit(tx, 'user_signedup', created.id, meta.ip, { provider: 'phone' });
      if (autoconfirm) return confirmPhone(tx, created, now);
      return updateUser(tx, created.id, { confirmationSentAt: now });
    });
  } catch (err) {
    // A concurrent sign-up of the same number won: answer as for a pending duplicate, no second SMS.
    if (!isUniqueViolation(err)) throw err;
    const winner = await findUserByPhone(deps.db, phone);
    if (!winner) throw err;
    if (winner.phoneConfirmedAt && autoconfirm) throw new AuthError('user_already_exists');
    const rel = await loadUserRelations(deps.db, winner.id);
    return userJson(winner, rel.identities, rel.factors);
  }
  if (newId) await afterUserCreated(deps, userJson(user, []), meta.ip);
  if (!autoconfirm) {
    await sendPhoneCode(deps, user.id, phone, 'sms', undefined, { channel, userMetadata: user.userMetadata });
    const rel = await loadUserRelations(deps.db, user.id);
    return userJson(user, rel.identities, rel.factors);
  }
  const signedIn = await deps.db.transaction(async (tx) => {
    const stamped = await updateUser(tx, user.id, { lastSignInAt: now });
    const started = await startSession(deps, tx, stamped, 'password', meta);
    await audit(tx, 'login', user.id, meta.ip, { provider: 'phone' });
    return { user: stamped, started };
  });
  return issueSession(deps, {
    user: signedIn.user,
    session: signedIn.started.session,
    refreshToken: signedIn.started.refreshToken,
  });
}

/** GoTrue's answer to a repeated sign-up of a confirmed number: a made-up user, no identities. */
function fakePhoneUser(
  id: string,
  phone: string,
  data: Record<string, unknown>,
  now: Date,
  who: AudRole,
): User {
  return {
    ...fakeUserJson(id, '', data, now, who),
    phone,
    app_metadata: { provider: 'phone', providers: ['phone'] },
  };
}
