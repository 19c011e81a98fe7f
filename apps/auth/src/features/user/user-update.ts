import { assertNotBreached } from '../../core/breached-passwords.ts';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { parseEmail } from '../../core/email.ts';
import type { User } from '../../core/http/response-schemas.ts';
import { MAX_METADATA_BYTES } from '../../core/http/schemas.ts';
import { assertPasswordAcceptable, passwordPolicyOf } from '../../core/password-policy.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { enforceOtpIpLimit } from '../../core/rate-limit.ts';
import { userJson } from '../../core/user-json.ts';
import { hashPassword, verifyPassword } from '../../crypto/passwords.ts';
import { audit } from '../../db/audit.repo.ts';
import { isUniqueViolation } from '../../db/client.ts';
import { listFactors } from '../../db/mfa.repo.ts';
import { deleteUserTokens } from '../../db/one-time-tokens.repo.ts';
import type { SessionRow } from '../../db/sessions.repo.ts';
import { deleteUserSessions } from '../../db/sessions.repo.ts';
import {
  applyEmailChange,
  findUserByEmail,
  loadUserRelations,
  lockUserById,
  type UserRow,
  updateUser,
} from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { hasVerifiedFactor } from '../mfa/index.ts';
import { requestPhoneChange } from '../otp/index.ts';
import { emailChangeQuota, mailEmailChange } from './email-change.ts';
import { checkNonceGiven, consumeNonce, passwordChangeNeedsNonce } from './reauthenticate.ts';

export type UserUpdateInput = {
  email?: string | undefined;
  /** A new phone number: held as pending and confirmed by an SMS code (verifyOtp type phone_change). */
  phone?: string | undefined;
  password?: string | undefined;
  /** The code from GET /reauthenticate, when the password change needs one. */
  nonce?: string | undefined;
  data?: Record<string, unknown> | undefined;
  pkce?: PkceParams | undefined;
};

/** Merges metadata: a key set to null is removed (GoTrue's rule). */
export function mergeMetadata(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  // A Map, not `out[k] = v`: assigning a "__proto__" key would call the prototype setter (the key
  // silently dropped, the object's prototype swapped) instead of storing it as the plain data it is.
  const out = new Map(Object.entries(current));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) out.delete(k);
    else out.set(k, v);
  }
  return Object.fromEntries(out);
}

/**
 * Refuses a merge that leaves the metadata over the cap, unless it does not grow it: an account
 * already over the cap (stored before the cap existed) can still shrink or reshape its metadata.
 */
function assertMetadataFits(current: Record<string, unknown>, merged: Record<string, unknown>): void {
  const size = JSON.stringify(merged).length;
  if (size > MAX_METADATA_BYTES && size > JSON.stringify(current).length)
    throw new AuthError('validation_failed', 'data is too large');
}

/**
 * PUT /user: metadata, password (ends the user's other sessions), email change (confirmed by mail)
 * and phone change (confirmed by an SMS code, features/otp).
 */
export async function updateCurrentUser(
  deps: Deps,
  user: UserRow,
  session: SessionRow,
  input: UserUpdateInput,
  redirectTo: string,
  meta: RequestMeta,
): Promise<User> {
  // With MFA on, changing the email or password needs an aal2 session (GoTrue: 401 insufficient_aal).
  if (
    (input.password !== undefined || input.email !== undefined || input.phone !== undefined) &&
    session.aal !== 'aal2' &&
    hasVerifiedFactor(await listFactors(deps.db, user.id))
  )
    throw new AuthError('insufficient_aal');
  // An anonymous user's password would belong to no address it could sign in with: GoTrue refuses
  // it unless the same request adds the email.
  if (user.isAnonymous && input.password && !input.email && !input.phone)
    throw new AuthError(
      'validation_failed',
      'Updating password of an anonymous user without an email or phone is not allowed',
      { status: 422 },
    );
  await enforceOtpIpLimit(deps, meta.ip);
  const now = deps.clock();
  let passwordHash: string | undefined;
  const needsNonce = input.password !== undefined && passwordChangeNeedsNonce(deps, session);
  if (input.password !== undefined) {
    assertPasswordAcceptable(input.password, passwordPolicyOf(deps.config), {
      email: user.email ?? undefined,
    });
    await assertNotBreached(deps, input.password);
    if (needsNonce) await checkNonceGiven(deps, user, input.nonce);
    if (user.encryptedPassword && (await verifyPassword(user.encryptedPassword, input.password)).ok)
      throw new AuthError('same_password');
    passwordHash = await hashPassword(input.password);
  }
  let newEmail: string | undefined;
  if (input.email !== undefined) {
    const email = parseEmail(input.email);
    if (email !== user.email) {
      const other = await findUserByEmail(deps.db, email);
      if (other) throw new AuthError('email_exists');
      await emailChangeQuota(deps, user, email);
      newEmail = email;
    }
  }
  // A phone change texts its code first: a number taken by another account is refused (422
  // phone_exists) before anything else of the request is written.
  const phoneChange = input.phone ? await requestPhoneChange(deps, user, input.phone) : undefined;
  let mailed = false;
  const updated = await deps.db
    .transaction(async (tx) => {
      if (needsNonce) await consumeNonce(deps, tx, user, input.nonce ?? '');
      const patch: Partial<UserRow> = { updatedAt: now };
      if (input.data) {
        // Merge onto the locked, current row, not the copy loaded when the request authenticated: two
        // concurrent patches then apply one after the other (neither loses the other's keys), and the
        // cap is checked against what is actually written.
        const current = (await lockUserById(tx, user.id))?.userMetadata ?? user.userMetadata;
        const merged = mergeMetadata(current, input.data);
        assertMetadataFits(current, merged);
        patch.userMetadata = merged;
      }
      if (passwordHash) {
        patch.encryptedPassword = passwordHash;
        // A new password also cancels a pending email change (one started below is issued afresh).
        patch.emailChange = null;
        patch.emailChangeSentAt = null;
        patch.emailChangeConfirmStatus = 0;
      }
      let row = await updateUser(tx, user.id, patch);
      if (phoneChange?.pending) await audit(tx, 'user_modified', user.id, meta.ip, { phone_change: true });
      if (passwordHash) {
        // A new password ends every other session and voids outstanding links (GoTrue's rule).
        await deleteUserSessions(tx, user.id, session.id);
        await deleteUserTokens(tx, user.id, [
          'recovery',
          'magiclink',
          'confirmation',
          'email_change_new',
          'email_change_current',
          'reauthentication',
        ]);
        await audit(tx, 'user_updated_password', user.id, meta.ip, {});
      }
      if (newEmail && user.isAnonymous && deps.config.MAILER_AUTOCONFIRM) {
        // GoTrue: with addresses not proven at all, an anonymous user's first address is taken at
        // once, like a sign-up's (a permanent user's change always waits for the link).
        row = await applyEmailChange(tx, row, newEmail, now);
        await audit(tx, 'email_changed', user.id, meta.ip, {});
      } else if (newEmail) {
        row = await mailEmailChange(deps, tx, row, newEmail, redirectTo, input.pkce);
        mailed = true;
      }
      if (input.data || newEmail) await audit(tx, 'user_modified', user.id, meta.ip, {});
      return row;
    })
    .catch((err: unknown) => {
      // Another account took the address between the check above and this write.
      if (isUniqueViolation(err)) throw new AuthError('email_exists');
      throw err;
    });
  if (mailed) deps.mail.kick();
  const rel = await loadUserRelations(deps.db, user.id);
  return userJson(updated, rel.identities, rel.factors);
}
