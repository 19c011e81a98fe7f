// Which account a provider's sign-in lands in (GoTrue's account-linking rules):
// - the identity (provider, provider id) is known: its user;
// - linking (linkIdentity): the signed-in user, unless the identity belongs to someone else;
// - otherwise an account with the same email is joined only when the provider vouches for the address
//   AND the account has confirmed it: a pending sign-up someone made with another person's address,
//   or a provider that does not check addresses, must never open (or be opened by) that account;
//   such a collision is refused with email_exists;
// - otherwise a new user.
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { audit } from '../../db/audit.repo.ts';
import type { DbOrTx } from '../../db/client.ts';
import {
  findIdentity,
  insertIdentity,
  insertProviderUser,
  refreshIdentity,
  syncProviders,
} from '../../db/identities.repo.ts';
import { findUserByEmail, findUserById, type UserRow, updateUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import type { ProviderProfile } from './providers.ts';

export async function accountForProfile(
  deps: Deps,
  tx: DbOrTx,
  provider: string,
  profile: ProviderProfile,
  meta: RequestMeta,
  linkUserId?: string | null,
): Promise<UserRow> {
  const now = deps.clock();
  const existing = await findIdentity(tx, provider, profile.providerId);
  if (linkUserId) {
    if (existing && existing.userId !== linkUserId) throw new AuthError('identity_already_exists');
    if (existing) await refreshIdentity(tx, existing.id, profile.email, profile.data, now);
    else
      await insertIdentity(tx, {
        userId: linkUserId,
        provider,
        providerId: profile.providerId,
        email: profile.email,
        data: profile.data,
        now,
      });
    await audit(tx, 'user_modified', linkUserId, meta.ip, { action: 'identity_linked', provider });
    return syncProviders(tx, linkUserId, now);
  }
  if (existing) {
    const user = await findUserById(tx, existing.userId);
    if (!user) throw new AuthError('unexpected_failure');
    await refreshIdentity(tx, existing.id, profile.email, profile.data, now);
    // GoTrue keeps the provider's latest profile in user_metadata too.
    return updateUser(tx, user.id, {
      userMetadata: { ...user.userMetadata, ...profile.data },
      updatedAt: now,
    });
  }
  if (profile.email) {
    const byEmail = await findUserByEmail(tx, profile.email);
    if (byEmail) {
      if (!profile.emailVerified || !byEmail.emailConfirmedAt || byEmail.isAnonymous)
        throw new AuthError('email_exists');
      await insertIdentity(tx, {
        userId: byEmail.id,
        provider,
        providerId: profile.providerId,
        email: profile.email,
        data: profile.data,
        now,
      });
      await audit(tx, 'user_modified', byEmail.id, meta.ip, { action: 'identity_linked', provider });
      return syncProviders(tx, byEmail.id, now);
    }
  }
  if (deps.config.DISABLE_SIGNUP) throw new AuthError('signup_disabled');
  const user = await insertProviderUser(tx, {
    email: profile.email,
    emailConfirmedAt: profile.emailVerified ? now : null,
    provider,
    userMetadata: profile.data,
    now,
    ...newUserAudRole(deps.config),
  });
  await insertIdentity(tx, {
    userId: user.id,
    provider,
    providerId: profile.providerId,
    email: profile.email,
    data: profile.data,
    now,
  });
  await audit(tx, 'user_signedup', user.id, meta.ip, { provider });
  return user;
}

/** The sign-in itself: banned users stop here; the user's last sign-in is stamped. */
export async function admitUser(deps: Deps, tx: DbOrTx, user: UserRow, provider: string, meta: RequestMeta) {
  const now = deps.clock();
  if (user.bannedUntil && user.bannedUntil > now) throw new AuthError('user_banned');
  const stamped = await updateUser(tx, user.id, { lastSignInAt: now });
  await audit(tx, 'login', user.id, meta.ip, { provider });
  return stamped;
}
