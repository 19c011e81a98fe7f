// DELETE /user/identities/{id} (`unlinkIdentity`): GoTrue's rules: the identity must be the
// user's own, and a user never loses their last identity (they could no longer sign in).
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { audit } from '../../db/audit.repo.ts';
import { deleteIdentity, findIdentityById, syncProviders } from '../../db/identities.repo.ts';
import { loadUserRelations, lockUserById, type UserRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

export async function unlinkIdentity(
  deps: Deps,
  user: UserRow,
  identityId: string,
  meta: RequestMeta,
): Promise<void> {
  if (!deps.config.social.manualLinking) throw new AuthError('manual_linking_disabled');
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(identityId))
    throw new AuthError('identity_not_found');
  await deps.db.transaction(async (tx) => {
    // The user row is locked first, so two unlinks at once cannot each leave the other's last one.
    await lockUserById(tx, user.id);
    const identity = await findIdentityById(tx, identityId);
    if (!identity || identity.userId !== user.id) throw new AuthError('identity_not_found');
    const { identities } = await loadUserRelations(tx, user.id);
    if (identities.length <= 1) throw new AuthError('single_identity_not_deletable');
    await deleteIdentity(tx, identity.id);
    await syncProviders(tx, user.id, deps.clock());
    await audit(tx, 'user_modified', user.id, meta.ip, {
      action: 'identity_unlinked',
      provider: identity.provider,
    });
  });
}
