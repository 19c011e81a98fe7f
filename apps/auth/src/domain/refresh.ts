import { sha256 } from '../crypto/tokens.ts';
import type { Deps } from '../deps.ts';
import { AuthError } from '../errors.ts';
import {
  activeRefreshTokenHash,
  deleteSession,
  findRefreshToken,
  type RefreshLookup,
  rotateRefreshToken,
} from '../repositories/sessions.ts';
import { loadUserRelations } from '../repositories/users.ts';
import { childRefreshToken, type SessionResponse, sessionResponse } from './session-tokens.ts';
import { userJson } from './user-json.ts';

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

function checkUsable(found: RefreshLookup, now: Date): void {
  if (found.user.bannedUntil && found.user.bannedUntil > now) throw new AuthError('user_banned');
  if (found.session.notAfter && found.session.notAfter <= now) throw new AuthError('session_expired');
}

/** POST /token?grant_type=refresh_token */
export async function refreshGrant(deps: Deps, presented: unknown): Promise<SessionResponse> {
  if (typeof presented !== 'string' || presented.length < 12 || presented.length > 256)
    throw new AuthError('validation_failed', 'Refresh token is not valid');
  const { db } = deps;
  const hash = sha256(presented);
  let found = await findRefreshToken(db, hash);
  if (!found) throw new AuthError('refresh_token_not_found');
  const now = deps.clock();
  checkUsable(found, now);

  if (!found.token.revoked) {
    const child = childRefreshToken(deps.secrets.refreshChain, presented);
    let rotated = false;
    // Load the user's identities/factors while the rotation runs (two pool connections on PostgreSQL).
    const relations = loadUserRelations(db, found.user.id);
    relations.catch(() => {});
    try {
      rotated = await rotateRefreshToken(db, {
        tokenId: found.token.id,
        childHash: sha256(child),
        sessionId: found.session.id,
        userId: found.user.id,
        now,
      });
    } catch (err) {
      // The session was deleted (logout) between our read and the insert: the family is gone.
      if ((err as { cause?: { code?: string } }).cause?.code === '23503')
        throw new AuthError('refresh_token_not_found');
      throw err;
    }
    if (rotated) return respond(deps, found, child, await relations);
    // Another request rotated this token first: re-read it and follow the reuse rules.
    found = await findRefreshToken(db, hash);
    if (!found) throw new AuthError('refresh_token_not_found');
  }

  const decision = decideReuse({
    presented,
    activeHash: await activeRefreshTokenHash(db, found.session.id),
    revokedAt: found.token.revokedAt,
    now,
    reuseIntervalSec: deps.config.REFRESH_TOKEN_REUSE_INTERVAL,
    secret: deps.secrets.refreshChain,
  });
  if (decision.kind === 'return-active') return respond(deps, found, decision.token);
  if (decision.kind === 'revoke-family') {
    await deleteSession(db, found.session.id);
    deps.logger.warn(
      { sessionId: found.session.id, userId: found.user.id },
      'refresh token reuse: session revoked',
    );
    throw new AuthError('refresh_token_already_used');
  }
  throw new AuthError('session_not_found', 'Invalid Refresh Token: No Valid Session Found', { status: 400 });
}

async function respond(
  deps: Deps,
  found: RefreshLookup,
  token: string,
  preloaded?: Awaited<ReturnType<typeof loadUserRelations>>,
): Promise<SessionResponse> {
  const rel = preloaded ?? (await loadUserRelations(deps.db, found.user.id));
  return sessionResponse(
    deps,
    found.user,
    found.session,
    token,
    userJson(found.user, rel.identities, rel.factors),
  );
}
