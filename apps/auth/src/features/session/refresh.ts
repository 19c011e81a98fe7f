import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { childRefreshToken, issueSession } from '../../core/issue-session.ts';
import { sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import { sqlState } from '../../db/client.ts';
import {
  deleteSession,
  findAndRotateRefreshToken,
  type RefreshLookup,
  type RefreshOutcome,
} from '../../db/sessions.repo.ts';
import { AuthError } from '../../errors.ts';

/** How far down the chain a replayed token may be from the active one (within the reuse interval). */
export const MAX_CHAIN_WALK = 32;

export type ReuseDecision =
  | { kind: 'return-active'; token: string; depth: number }
  | { kind: 'revoke-family' }
  | { kind: 'session-gone' };

/**
 * The rules for a token that was already rotated (GoTrue's, with hashed storage):
 * - it is the parent of the active token → hand back the active token (no new rotation), any time;
 * - it was rotated less than REFRESH_TOKEN_REUSE_INTERVAL seconds ago and the active token
 *   descends from it → hand back the active token (concurrent tabs converge on one token);
 * - otherwise it is a replay → revoke the whole family (the session).
 */
export function decideReuse(p: {
  presented: string;
  activeHash: string | undefined;
  revokedAt: Date | null;
  now: Date;
  reuseIntervalSec: number;
  secret: string;
}): ReuseDecision {
  if (!p.activeHash) return { kind: 'session-gone' };
  const withinInterval =
    p.revokedAt !== null && p.now.getTime() - p.revokedAt.getTime() <= p.reuseIntervalSec * 1000;
  let candidate = p.presented;
  for (let depth = 1; depth <= MAX_CHAIN_WALK; depth++) {
    candidate = childRefreshToken(p.secret, candidate);
    if (sha256(candidate) === p.activeHash) {
      if (depth === 1 || withinInterval) return { kind: 'return-active', token: candidate, depth };
      return { kind: 'revoke-family' };
    }
    if (!withinInterval) break; // outside the interval only the direct parent is acceptable
  }
  return { kind: 'revoke-family' };
}

/** The session limits as cut-off times: a session begun / last refreshed before them is over. */
function sessionCutoffs(deps: Deps, now: Date): { startedAfter?: Date; refreshedAfter?: Date } {
  const { SESSIONS_TIMEBOX: timebox, SESSIONS_INACTIVITY_TIMEOUT: idle } = deps.config;
  return {
    ...(timebox > 0 ? { startedAfter: new Date(now.getTime() - timebox * 1000) } : {}),
    ...(idle > 0 ? { refreshedAfter: new Date(now.getTime() - idle * 1000) } : {}),
  };
}

function checkUsable(found: RefreshLookup, now: Date, limits: ReturnType<typeof sessionCutoffs>): void {
  if (found.user.bannedUntil && found.user.bannedUntil > now) throw new AuthError('user_banned');
  const { session } = found;
  if (
    (session.notAfter && session.notAfter <= now) ||
    (limits.startedAfter && session.createdAt <= limits.startedAfter) ||
    (limits.refreshedAfter && (session.refreshedAt ?? session.createdAt) <= limits.refreshedAfter)
  )
    throw new AuthError('session_expired');
}

/**
 * POST /token?grant_type=refresh_token. The happy path is ONE SQL statement
 * (findAndRotateRefreshToken: look-up + rotation + user, identities and factors) and one signature.
 */
export async function refreshGrant(deps: Deps, presented: unknown, meta?: RequestMeta): Promise<Session> {
  if (typeof presented !== 'string' || presented.length < 12 || presented.length > 256)
    throw new AuthError('validation_failed', 'Refresh token is not valid');
  const { db } = deps;
  const now = deps.clock();
  const child = childRefreshToken(deps.secrets.refreshChain, presented);
  const limits = sessionCutoffs(deps, now);
  const args = { tokenHash: sha256(presented), childHash: sha256(child), now, ...limits };
  let found: RefreshOutcome | undefined;
  try {
    found = await findAndRotateRefreshToken(db, args);
    // The statement never rotates a banned user's or an ended session's token.
    if (found) checkUsable(found, now, limits);
    // Active when read but rotated by a concurrent request before our update: read it again, now
    // revoked, and follow the reuse rules below.
    if (found && !found.rotated && !found.token.revoked) found = await findAndRotateRefreshToken(db, args);
  } catch (err) {
    // The session was deleted (logout) between our read and the insert: the family is gone.
    if (sqlState(err) === '23503') throw new AuthError('refresh_token_not_found');
    throw err;
  }
  if (!found) throw new AuthError('refresh_token_not_found');
  if (found.rotated) return respond(deps, found, child, meta);

  const decision = decideReuse({
    presented,
    activeHash: found.activeHash,
    revokedAt: found.token.revokedAt,
    now,
    reuseIntervalSec: deps.config.REFRESH_TOKEN_REUSE_INTERVAL,
    secret: deps.secrets.refreshChain,
  });
  if (decision.kind === 'return-active') return respond(deps, found, decision.token, meta);
  if (decision.kind === 'revoke-family') {
    // The revocation and its audit row commit together (reuse = a likely stolen token).
    const { session, user } = found;
    await db.transaction(async (tx) => {
      await deleteSession(tx, session.id);
      await audit(tx, 'token_revoked', user.id, meta?.ip ?? null, {
        reason: 'refresh_token_reuse',
        session_id: session.id,
      });
    });
    deps.logger.warn(
      { sessionId: found.session.id, userId: found.user.id },
      'refresh token reuse: session revoked',
    );
    throw new AuthError('refresh_token_already_used');
  }
  throw new AuthError('session_not_found', 'Invalid Refresh Token: No Valid Session Found', { status: 400 });
}

function respond(
  deps: Deps,
  found: RefreshOutcome,
  token: string,
  meta: RequestMeta | undefined,
): Promise<Session> {
  // The rotation statement read the relations too: no further query.
  return issueSession(deps, {
    user: found.user,
    session: found.session,
    refreshToken: token,
    relations: found,
    hook: { method: 'token_refresh', ip: meta?.ip },
  });
}
