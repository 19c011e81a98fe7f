// Anonymous sign-in (supabase-js `signInAnonymously`: POST /signup with neither email nor phone):
// a user with no address, no password and no identity, `is_anonymous: true`, signed in at once with
// amr `anonymous`. It becomes a permanent account by adding an email through PUT /user (confirmed
// by the mailed link; features/user) and then a password, keeping its id and metadata.
import { randomUUID } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { afterUserCreated, beforeUserCreated, candidateUser } from '../../core/hooks/user-hooks.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { newUserAudRole } from '../../core/new-user.ts';
import { enforceRateLimits, perIpLimit } from '../../core/rate-limit.ts';
import { userJson } from '../../core/user-json.ts';
import { audit } from '../../db/audit.repo.ts';
import { insertAnonymousUser } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';

/**
 * GoTrue's order: the provider switch (EXTERNAL_ANONYMOUS_USERS_ENABLED, off by default), then the
 * per-IP hourly budget (RATE_LIMIT_ANONYMOUS_USERS), then DISABLE_SIGNUP.
 */
export async function signInAnonymously(
  deps: Deps,
  data: Record<string, unknown>,
  meta: RequestMeta,
): Promise<Session> {
  if (!deps.config.EXTERNAL_ANONYMOUS_USERS_ENABLED) throw new AuthError('anonymous_provider_disabled');
  const limit = perIpLimit(deps, 'anonymous', meta.ip);
  await enforceRateLimits(deps, [limit], limit.windowSec ?? 3600);
  if (deps.config.DISABLE_SIGNUP) throw new AuthError('signup_disabled');
  const now = deps.clock();
  const id = randomUUID();
  await beforeUserCreated(
    deps,
    candidateUser({ id, audRole: newUserAudRole(deps.config), provider: 'anonymous', data, now }),
    meta.ip,
  );
  const { user, started } = await deps.db.transaction(async (tx) => {
    const user = await insertAnonymousUser(tx, {
      id,
      userMetadata: data,
      now,
      ...newUserAudRole(deps.config),
    });
    await audit(tx, 'user_signedup', user.id, meta.ip, { provider: 'anonymous' });
    const started = await startSession(deps, tx, user, 'anonymous', meta);
    await audit(tx, 'login', user.id, meta.ip, { provider: 'anonymous' });
    return { user, started };
  });
  await afterUserCreated(deps, userJson(user, []), meta.ip);
  return issueSession(deps, {
    user,
    session: started.session,
    refreshToken: started.refreshToken,
    relations: { identities: [], factors: [] },
    hook: { ip: meta.ip },
  });
}
