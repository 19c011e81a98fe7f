import type { Deps, RequestMeta } from '../../core/deps.ts';
import { audit } from '../../db/audit.repo.ts';
import { deleteSession, deleteUserSessions } from '../../db/sessions.repo.ts';
import { AuthError } from '../../errors.ts';

/** GoTrue's logout scopes (the query's documented values come from here). */
export const LOGOUT_SCOPES = ['global', 'local', 'others'] as const;

/**
 * POST /logout: ends this session (`local`), every other one (`others`) or all of them (`global`,
 * GoTrue's default). The deletion and its audit row commit together: no session ends unrecorded,
 * and a failed audit write leaves the sessions as they were.
 */
export async function signOut(
  deps: Deps,
  who: { userId: string; sessionId: string },
  scope: string,
  meta: RequestMeta,
): Promise<void> {
  if (!(LOGOUT_SCOPES as readonly string[]).includes(scope))
    throw new AuthError('validation_failed', `Unsupported logout scope "${scope.slice(0, 20)}"`);
  await deps.db.transaction(async (tx) => {
    if (scope === 'local') await deleteSession(tx, who.sessionId);
    else await deleteUserSessions(tx, who.userId, scope === 'others' ? who.sessionId : undefined);
    await audit(tx, 'logout', who.userId, meta.ip, { scope });
  });
}
