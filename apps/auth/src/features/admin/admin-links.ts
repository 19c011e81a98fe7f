// POST /admin/generate_link and POST /invite (GoTrue's admin links). generate_link hands the link and
// code to the caller instead of mailing them (an operator's own mailer sends them); /invite mails
// the invitation. Both are confirmation-style one-time tokens that POST/GET /verify consumes.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import { issueEmailToken } from '../../core/email-tokens.ts';
import { hookEnabled } from '../../core/hooks/hooks.ts';
import { afterUserCreated, beforeUserCreated, candidateUser } from '../../core/hooks/user-hooks.ts';
import type { User } from '../../core/http/response-schemas.ts';
import { mailLocaleFor } from '../../core/mail/locale.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { assertPasswordAcceptable, passwordPolicyOf } from '../../core/password-policy.ts';
import { emailQuota } from '../../core/rate-limit.ts';
import { hashPassword } from '../../crypto/passwords.ts';
import { isUniqueViolation, type Tx } from '../../db/client.ts';
import type { OneTimeTokenType } from '../../db/one-time-tokens.repo.ts';
import type { AudRole } from '../../db/users.repo.ts';
import { findUserByEmail, insertUser, type UserRow, updateUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { type AdminContext, adminUserJson, auditAdmin, userNotFound } from './admin-users.ts';

export const LINK_TYPES = [
  'signup',
  'invite',
  'magiclink',
  'recovery',
  'email_change_current',
  'email_change_new',
] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export type GenerateLinkInput = {
  type: string;
  email: string | undefined;
  password?: string | undefined;
  newEmail?: string | undefined;
  data?: Record<string, unknown> | undefined;
  redirectTo: string;
};

/** GoTrue's generate_link answer: the user's fields and these, flat in one object. */
export type LinkProperties = {
  action_link: string;
  email_otp: string;
  hashed_token: string;
  redirect_to: string;
  verification_type: string;
};

/** A new user without a password (an invitation, a magic link to an unknown address). */
async function insertPendingUser(
  tx: Tx,
  who: AudRole,
  email: string,
  data: Record<string, unknown> | undefined,
  now: Date,
  extra: { invitedAt?: Date; passwordHash?: string; id?: string | undefined } = {},
): Promise<UserRow> {
  return insertUser(tx, {
    id: extra.id ?? randomUUID(),
    email,
    phone: null,
    passwordHash: extra.passwordHash ?? null,
    ...who,
    emailConfirmedAt: null,
    phoneConfirmedAt: null,
    invitedAt: extra.invitedAt ?? null,
    confirmationSentAt: now,
    bannedUntil: null,
    appMetadata: { provider: 'email', providers: ['email'] },
    userMetadata: data ?? {},
    now,
  });
}

/**
 * The user an invitation is for: a new one, or an earlier invitee who has not accepted yet (the new
 * link replaces the old). A confirmed account cannot be invited: GoTrue's 422 email_exists.
 */
async function inviteeFor(
  tx: Tx,
  who: AudRole,
  email: string,
  data: Record<string, unknown> | undefined,
  now: Date,
  /** The id before_user_created was shown, for a new user. */
  newId: string | undefined,
): Promise<UserRow> {
  const existing = await findUserByEmail(tx, email);
  if (existing?.emailConfirmedAt) throw new AuthError('email_exists');
  if (existing)
    return updateUser(tx, existing.id, { invitedAt: now, confirmationSentAt: now, updatedAt: now });
  return insertPendingUser(tx, who, email, data, now, { invitedAt: now, id: newId });
}

/**
 * GoTrue runs before_user_created for an invitation or a link that makes a new account (not for
 * admin.createUser), outside the transaction: the id it is shown is the id the user gets. Undefined
 * when the address already has an account (nothing is created, no hook).
 */
async function announceNewUser(
  deps: Deps,
  ctx: AdminContext,
  email: string,
  data: Record<string, unknown> | undefined,
  now: Date,
): Promise<string | undefined> {
  // With neither hook on, no look-up: the insert picks its own id.
  if (!hookEnabled(deps, 'BEFORE_USER_CREATED') && !hookEnabled(deps, 'AFTER_USER_CREATED')) return undefined;
  if (await findUserByEmail(deps.db, email)) return undefined;
  const id = randomUUID();
  await beforeUserCreated(
    deps,
    candidateUser({
      id,
      audRole: newUserAudRole(deps.config),
      provider: 'email',
      email,
      data: data ?? {},
      now,
    }),
    ctx.meta.ip,
  );
  return id;
}

function mapDuplicate(err: unknown): never {
  if (isUniqueViolation(err)) throw new AuthError('email_exists');
  throw err;
}

/** POST /admin/generate_link. */
export async function generateLink(
  deps: Deps,
  ctx: AdminContext,
  input: GenerateLinkInput,
): Promise<{ user: User; properties: LinkProperties }> {
  if (!(LINK_TYPES as readonly string[]).includes(input.type))
    throw new AuthError(
      'validation_failed',
      `Invalid email action link type requested: ${input.type.slice(0, 40)}`,
    );
  const type = input.type as LinkType;
  if (input.email === undefined || input.email === '')
    throw new AuthError('validation_failed', 'An email address is required');
  const email = parseEmail(input.email);
  let newEmail: string | undefined;
  if (type === 'email_change_current' || type === 'email_change_new') {
    if (!input.newEmail) throw new AuthError('validation_failed', 'The new email address must be provided');
    newEmail = parseEmail(input.newEmail);
  }
  let passwordHash: string | undefined;
  if (type === 'signup') {
    if (!input.password) throw new AuthError('validation_failed', 'Password is required for a signup link');
    assertPasswordAcceptable(input.password, passwordPolicyOf(deps.config), { email });
    passwordHash = await hashPassword(input.password);
  }
  const now = deps.clock();
  const newId =
    type === 'signup' || type === 'invite' || type === 'magiclink'
      ? await announceNewUser(deps, ctx, email, input.data, now)
      : undefined;
  let answer: { user: User; properties: LinkProperties; created: boolean };
  try {
    answer = await deps.db.transaction(async (tx) => {
      let user = await findUserByEmail(tx, email);
      const created = user === undefined && newId !== undefined;
      // What the link is: the stored token type, the `type` the link and /verify use, and the address.
      let tokenType: OneTimeTokenType;
      let verificationType: string;
      let to = email;
      switch (type) {
        case 'signup':
          if (user?.emailConfirmedAt) throw new AuthError('email_exists');
          user = user
            ? await updateUser(tx, user.id, {
                encryptedPassword: passwordHash ?? null,
                confirmationSentAt: now,
                updatedAt: now,
              })
            : await insertPendingUser(tx, newUserAudRole(deps.config), email, input.data, now, {
                passwordHash: passwordHash as string,
                id: newId,
              });
          tokenType = 'confirmation';
          verificationType = 'signup';
          break;
        case 'invite':
          user = await inviteeFor(tx, newUserAudRole(deps.config), email, input.data, now, newId);
          tokenType = 'confirmation';
          verificationType = 'invite';
          break;
        case 'magiclink':
          // An unknown address is signed up (GoTrue's magic link does the same), and an unconfirmed
          // one gets a confirmation: either way the link confirms the address and signs the user in.
          user ??= await insertPendingUser(tx, newUserAudRole(deps.config), email, input.data, now, {
            id: newId,
          });
          if (user.emailConfirmedAt) {
            tokenType = 'recovery';
            verificationType = 'magiclink';
          } else {
            tokenType = 'confirmation';
            verificationType = 'signup';
          }
          break;
        case 'recovery':
          if (!user) throw userNotFound();
          user = await updateUser(tx, user.id, { recoverySentAt: now, updatedAt: now });
          tokenType = 'recovery';
          verificationType = 'recovery';
          break;
        default: {
          if (!user) throw userNotFound();
          const target = newEmail as string;
          const taken = await findUserByEmail(tx, target);
          if (taken) throw new AuthError('email_exists');
          // A new pending change starts its confirmations over; asking again for the other link of
          // the same change keeps what was already confirmed.
          const samePending = user.emailChange === target;
          user = await updateUser(tx, user.id, {
            emailChange: target,
            emailChangeSentAt: now,
            ...(samePending
              ? {}
              : { emailChangeConfirmStatus: deps.config.MAILER_SECURE_EMAIL_CHANGE_ENABLED ? 0 : 1 }),
            updatedAt: now,
          });
          tokenType = type;
          verificationType = 'email_change';
          if (type === 'email_change_new') to = target;
        }
      }
      const issued = await issueEmailToken(deps, tx, {
        userId: user.id,
        type: tokenType,
        to,
        redirectTo: input.redirectTo,
        // Nothing is mailed; the values only fill a message, which is never rendered here.
        locale: 'en',
        data: user.userMetadata,
        linkType: verificationType,
        deliver: false,
      });
      await auditAdmin(tx, ctx, 'admin_link_generated', user, { type });
      return {
        created,
        user: await adminUserJson(tx, user),
        properties: {
          action_link: issued.link as string,
          email_otp: issued.code,
          // GoTrue's name: what POST /verify takes as token_hash (here the link token itself; only
          // its SHA-256 is stored).
          hashed_token: issued.token,
          redirect_to: input.redirectTo,
          verification_type: verificationType,
        },
      };
    });
  } catch (err) {
    mapDuplicate(err);
  }
  if (answer.created) await afterUserCreated(deps, answer.user, ctx.meta.ip);
  return { user: answer.user, properties: answer.properties };
}

/** POST /invite: creates (or re-invites) the user and mails the invitation link and code. */
export async function inviteUser(
  deps: Deps,
  ctx: AdminContext,
  input: { email: string | undefined; data?: Record<string, unknown> | undefined; redirectTo: string },
): Promise<User> {
  if (input.email === undefined || input.email === '')
    throw new AuthError('validation_failed', 'An email address is required');
  const email = parseEmail(input.email);
  // The invitation is mail like any other: the per-address floor and quotas and the global hourly
  // quota apply (GoTrue limits invites by its email rate limit too), so a script looping over
  // /invite cannot burn the sender's reputation.
  await emailQuota(deps, email);
  const now = deps.clock();
  const newId = await announceNewUser(deps, ctx, email, input.data, now);
  let user: User;
  try {
    user = await deps.db.transaction(async (tx) => {
      const invitee = await inviteeFor(tx, newUserAudRole(deps.config), email, input.data, now, newId);
      await issueEmailToken(deps, tx, {
        userId: invitee.id,
        type: 'confirmation',
        to: email,
        redirectTo: input.redirectTo,
        locale: mailLocaleFor(input.redirectTo, deps.config.SITE_URL, invitee.userMetadata),
        data: invitee.userMetadata,
        linkType: 'invite',
        mailKind: 'invite',
      });
      await auditAdmin(tx, ctx, 'user_invited', invitee);
      return adminUserJson(tx, invitee);
    });
  } catch (err) {
    mapDuplicate(err);
  }
  deps.mail.kick();
  // Told only when this invitation made the account (a re-invitation creates nothing).
  if (newId && user.id === newId) await afterUserCreated(deps, user, ctx.meta.ip);
  return user;
}
