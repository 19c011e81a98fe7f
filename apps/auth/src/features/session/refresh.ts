import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession } from '../../core/issue-session.ts';
import { chainDepth, childRefreshToken, refreshTokenSession } from '../../core/refresh-token.ts';
import { sha256 } from '../../crypto/tokens.ts';
import { audit } from '../../db/audit.repo.ts';
import {
  deleteSession,
  findAndRotateRefreshToken,
  findLegacyRefreshTokenSession,
  type RefreshLookup,
  type RefreshOutcome,
  type SessionRow,
} from '../../db/sessions.repo.ts';
import { AuthError } from '../../errors.ts';

export type ReuseDecision =
  | { kind: 'return-active'; token: string; depth: number }
  | { kind: 'revoke-family' }
  | { kind: 'unknown' }
  | { kind: 'session-gone' };

/**
 * The rules for a presented token that is not the session's active one (GoTrue's, with hashed
 * storage; core/refresh-token.ts walks the chain):
 * - it is the parent of the active token → hand back the active token (no new rotation), any time;
 * - it was rotated less than REFRESH_TOKEN_REUSE_INTERVAL seconds ago and the active token
 *   descends from it → hand back the active token (concurrent tabs converge on one token);
 * - otherwise a token of the chain is a replay → revoke the whole family (the session);
 * - a token that does not lead to the active token is unknown, and ends nothing: whoever knows a
 *   session id (every access token carries it) must not be able to end the session with made-up
 *   tokens. A pre-format token's own row proves it was issued, so that one is a replay.
 * When it was rotated: a pre-format token's row says (`rowRevokedAt`); for the current format the
 * session knows it for two links: the parent was rotated at `refreshedAt` (when the active token was
 * issued), the grandparent at `refreshTokenPreviousAt`. An older token's rotation time is not kept,
 * so it is treated as outside the interval (three rotations within the interval do not happen to a
 * client that saves its tokens; erring the other way would hand a replayed token the active one).
 */
export function decideReuse(p: {
  presented: string;
  sessionId: string;
  activeHash: string | undefined;
  session: Pick<SessionRow, 'refreshTokenPreviousAt'>;
  /** Pre-format tokens only: the rotation time its row records (null: not rotated). */
  rowRevokedAt?: Date | null | undefined;
  now: Date;
  reuseIntervalSec: number;
  secret: string;
}): ReuseDecision {
  if (!p.activeHash) return { kind: 'session-gone' };
  const match = chainDepth({
    secret: p.secret,
    sessionId: p.sessionId,
    presented: p.presented,
    activeHash: p.activeHash,
  });
  const ownRow = p.rowRevokedAt !== undefined;
  if (!match) return ownRow ? { kind: 'revoke-family' } : { kind: 'unknown' };
  // The active token itself, not rotated: only a session that may not be refreshed gets here.
  if (match.depth === 0) return { kind: 'unknown' };
  if (match.depth === 1) return { kind: 'return-active', token: match.active, depth: 1 };
  const rotatedAt = ownRow ? p.rowRevokedAt : match.depth === 2 ? p.session.refreshTokenPreviousAt : null;
  const withinInterval = !!rotatedAt && p.now.getTime() - rotatedAt.getTime() <= p.reuseIntervalSec * 1000;
  return withinInterval
    ? { kind: 'return-active', token: match.active, depth: match.depth }
    : { kind: 'revoke-family' };
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
 * (findAndRotateRefreshToken: the session by primary key, its rotation, user, identities and
 * factors) and one signature. A pre-format token costs one more look-up (its row, for its session).
 */
export async function refreshGrant(deps: Deps, presented: unknown, meta?: RequestMeta): Promise<Session> {
  if (typeof presented !== 'string' || presented.length < 12 || presented.length > 256)
    throw new AuthError('validation_failed', 'Refresh token is not valid');
  const { db } = deps;
  const now = deps.clock();
  const tokenHash = sha256(presented);
  let sessionId = refreshTokenSession(presented);
  const legacy = !sessionId;
  sessionId ??= await findLegacyRefreshTokenSession(db, tokenHash);
  if (!sessionId) throw new AuthError('refresh_token_not_found');
  const child = childRefreshToken(deps.secrets.refreshChain, sessionId, presented);
  const limits = sessionCutoffs(deps, now);
  const args = { sessionId, tokenHash, childHash: sha256(child), now, legacy, ...limits };
  let found: RefreshOutcome | undefined = await findAndRotateRefreshToken(db, args);
  // The statement never rotates a banned user's or an ended session's token.
  if (found) checkUsable(found, now, limits);
  // Active when read but rotated by a concurrent request before our update: read it again, now
  // rotated, and follow the reuse rules below.
  if (found && !found.rotated && found.token.active) found = await findAndRotateRefreshToken(db, args);
  if (!found) throw new AuthError('refresh_token_not_found');
  if (found.rotated) return respond(deps, found, child, meta);

  const decision = decideReuse({
    presented,
    sessionId,
    activeHash: found.activeHash,
    session: found.session,
    rowRevokedAt: legacy ? found.token.revokedAt : undefined,
    now,
    reuseIntervalSec: deps.config.REFRESH_TOKEN_REUSE_INTERVAL,
    secret: deps.secrets.refreshChain,
  });
  if (decision.kind === 'return-active') return respond(deps, found, decision.token, meta);
  if (decision.kind === 'unknown') throw new AuthError('refresh_token_not_found');
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
