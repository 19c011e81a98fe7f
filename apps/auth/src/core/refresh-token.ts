// Refresh tokens: what they look like and how a replayed one is recognised.
//
// A refresh token is `<session id, 22 base64url characters>.<43 base64url characters>`. The session
// row holds the SHA-256 of its one active token (sessions.refresh_token_hash), so a refresh reads
// and rotates ONE row found by primary key, and no token rows pile up (docs/sizing.md: they were
// 1.7 KB of every account's 4.5 KB). A session's first token is random; each later one is
// HMAC(server secret, its parent). Only hashes are stored, yet the server can recompute the active
// token from any earlier one it is shown: that is how a tab that lost the race gets the SAME active
// token back instead of forking the session, and how a replay is told from a forgery. A thief
// without the secret cannot walk the chain; someone who only knows a session id (it is in every
// access token) cannot end that session with made-up tokens, because a token that does not lead to
// the active one is treated as unknown, never as a replay.
//
// Tokens issued before this format (no dot; one `refresh_tokens` row each) still work: the first
// refresh of such a token moves its session to the new format (features/session/refresh.ts).
import { hmac, randomToken, sha256 } from '../crypto/tokens.ts';

/** How far down the chain a presented token may be from the active one and still be recognised. */
export const MAX_CHAIN_WALK = 32;

const UUID_HEX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The part of a token that names its session. */
export function refreshTokenSessionPart(sessionId: string): string {
  return Buffer.from(sessionId.replaceAll('-', ''), 'hex').toString('base64url');
}

/** A new session's first refresh token. */
export function newRefreshToken(sessionId: string): string {
  return `${refreshTokenSessionPart(sessionId)}.${randomToken(32)}`;
}

/** The session a token of the current format names; undefined for a pre-format token or garbage. */
export function refreshTokenSession(token: string): string | undefined {
  const dot = token.indexOf('.');
  if (dot !== 22 || token.length !== 66) return undefined;
  const part = token.slice(0, 22);
  const bytes = Buffer.from(part, 'base64url');
  // base64url decoding ignores stray characters: only the canonical spelling names a session.
  if (bytes.length !== 16 || bytes.toString('base64url') !== part) return undefined;
  const hex = bytes.toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return UUID_HEX.test(id) ? id : undefined;
}

/** The token that rotating `parent` issues: same session, next link of the chain. */
export function childRefreshToken(secret: string, sessionId: string, parent: string): string {
  return `${refreshTokenSessionPart(sessionId)}.${hmac(secret, `refresh-child:${parent}`)}`;
}

/** How a pre-format token's child was derived (kept to recognise chains begun before the format). */
export function legacyChildRefreshToken(secret: string, parent: string): string {
  return hmac(secret, `refresh-child:${parent}`);
}

/** A presented token found on the way to the active one: how many rotations back, and the active token. */
export type ChainMatch = { depth: number; active: string };

/**
 * How many rotations separate `presented` from the session's active token (whose hash is
 * `activeHash`), with that active token; undefined when it does not lead there within
 * MAX_CHAIN_WALK steps. A pre-format token's chain went on in the old derivation until the session's
 * first refresh after the upgrade and in the new one after it, so from each of its old links the
 * new chain is tried too (at most MAX_CHAIN_WALK² / 2 HMACs, and only for such tokens).
 */
export function chainDepth(p: {
  secret: string;
  sessionId: string;
  presented: string;
  activeHash: string;
}): ChainMatch | undefined {
  const walkNew = (from: string, depth: number): ChainMatch | undefined => {
    let token = from;
    for (let d = depth; d <= MAX_CHAIN_WALK; d++) {
      if (sha256(token) === p.activeHash) return { depth: d, active: token };
      token = childRefreshToken(p.secret, p.sessionId, token);
    }
    return undefined;
  };
  if (refreshTokenSession(p.presented)) return walkNew(p.presented, 0);
  let legacy = p.presented;
  for (let d = 0; d < MAX_CHAIN_WALK; d++) {
    if (sha256(legacy) === p.activeHash) return { depth: d, active: legacy };
    const viaNew = walkNew(childRefreshToken(p.secret, p.sessionId, legacy), d + 1);
    if (viaNew) return viaNew;
    legacy = legacyChildRefreshToken(p.secret, legacy);
  }
  return sha256(legacy) === p.activeHash ? { depth: MAX_CHAIN_WALK, active: legacy } : undefined;
}
