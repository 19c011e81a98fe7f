// A user's MFA factors on the admin API: GET /admin/users/{id}/factors lists them (unverified ones
// too), DELETE …/factors/{factorId} removes one without the user's AAL2 (the operator's way out for
// a user who lost their authenticator). When that leaves no verified factor, the user's recovery
// codes go in the same transaction (as the site deletes them before the last factor).
import type { Deps } from '../../core/deps.ts';
import type { Factor } from '../../core/http/response-schemas.ts';
import { factorJson } from '../../core/user-json.ts';
import { deleteFactor, downgradeSessionsOfFactor, findUserFactor, listFactors } from '../../db/mfa.repo.ts';
import { findUserById, lockUserById } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { AMR_METHOD, dropOrphanedRecoveryCodes } from '../mfa/index.ts';
import { type AdminContext, auditAdmin, userNotFound } from './admin-users.ts';

export async function listUserFactors(deps: Deps, userId: string): Promise<Factor[]> {
  if (!(await findUserById(deps.db, userId))) throw userNotFound();
  return (await listFactors(deps.db, userId)).map(factorJson);
}

export async function deleteUserFactor(
  deps: Deps,
  ctx: AdminContext,
  userId: string,
  factorId: string,
): Promise<Factor> {
  const now = deps.clock();
  return deps.db.transaction(async (tx) => {
    // The row lock orders two deletes of one user's factors: each sees what the other left.
    const user = await lockUserById(tx, userId);
    if (!user) throw userNotFound();
    const factor = await findUserFactor(tx, userId, factorId);
    // Concurrent deletes: the second finds nothing to delete and answers like an unknown factor.
    if (!factor || !(await deleteFactor(tx, factor.id))) throw new AuthError('mfa_factor_not_found');
    await downgradeSessionsOfFactor(
      tx,
      factor.id,
      AMR_METHOD[factor.factorType] ?? '',
      Object.values(AMR_METHOD),
      now,
    );
    const codes = await dropOrphanedRecoveryCodes(tx, userId, now);
    await auditAdmin(tx, ctx, 'factor_deleted', user, {
      factor_id: factor.id,
      ...(codes ? { recovery_codes_deleted: codes } : {}),
    });
    return factorJson(factor);
  });
}
