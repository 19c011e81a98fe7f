// Unit tests for the refresh-token format and reuse rules (core/refresh-token.ts,
// features/session/refresh.ts): which replayed token gets the active one, when a replay revokes the
// session, and which tokens are merely unknown.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  chainDepth,
  childRefreshToken,
  legacyChildRefreshToken,
  MAX_CHAIN_WALK,
  newRefreshToken,
  refreshTokenSession,
} from '../../../src/core/refresh-token.ts';
import { sha256 } from '../../../src/crypto/tokens.ts';
import { decideReuse } from '../../../src/features/session/refresh.ts';

const secret = 'test-secret';
const sessionId = randomUUID();

/** A session's chain: its first token and `n` rotations. */
function chain(n: number, start = newRefreshToken(sessionId)): string[] {
  const out = [start];
  for (let i = 0; i < n; i++) out.push(childRefreshToken(secret, sessionId, out.at(-1) as string));
  return out;
}

describe('refresh-token format', () => {
  it('names its session in canonical base64url, and nothing else does', () => {
    const token = newRefreshToken(sessionId);
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(refreshTokenSession(token)).toBe(sessionId);
    expect(refreshTokenSession(chain(2).at(-1) as string)).toBe(sessionId);
    for (const bad of [
      'legacy-token-without-a-dot-0123456789abcdefghij',
      `${token.slice(0, 21)}.${token.slice(22)}`, // session part one short
      `${token}x`,
      `${token.slice(0, 21)}*${token.slice(22)}`, // not base64url
      `${token.slice(0, 21)}B${token.slice(22)}`, // non-canonical last character (stray bits)
      '',
    ])
      expect(refreshTokenSession(bad)).toBeUndefined();
  });

  it('derives children that depend on the server secret and stay in the session', () => {
    const [t0] = chain(0) as [string];
    expect(childRefreshToken('a', sessionId, t0)).not.toBe(childRefreshToken('b', sessionId, t0));
    expect(childRefreshToken('a', sessionId, t0)).toBe(childRefreshToken('a', sessionId, t0));
    expect(refreshTokenSession(childRefreshToken('a', sessionId, t0))).toBe(sessionId);
  });

  it('walks a chain begun before the format (rows) into the current one', () => {
    const l0 = 'legacy-root-token-0123456789abcdefghijklmnop';
    const l1 = legacyChildRefreshToken(secret, l0);
    const n1 = childRefreshToken(secret, sessionId, l1);
    const n2 = childRefreshToken(secret, sessionId, n1);
    const walk = (presented: string, active: string) =>
      chainDepth({ secret, sessionId, presented, activeHash: sha256(active) });
    expect(walk(l0, l1)).toEqual({ depth: 1, active: l1 });
    expect(walk(l0, n2)).toEqual({ depth: 3, active: n2 });
    expect(walk(l1, n1)).toEqual({ depth: 1, active: n1 });
    expect(walk(n1, l1)).toBeUndefined();
  });
});

describe('refresh-token reuse rules', () => {
  const now = new Date('2025-01-01T00:00:10Z');
  const base = { secret, sessionId, now, reuseIntervalSec: 10, session: { refreshTokenPreviousAt: null } };

  it('returns the active token to its parent, however long ago the parent was rotated', () => {
    const [t0, t1] = chain(1) as [string, string];
    expect(decideReuse({ ...base, presented: t0, activeHash: sha256(t1) })).toEqual({
      kind: 'return-active',
      token: t1,
      depth: 1,
    });
  });

  it('returns the active token to its grandparent only within the reuse interval, and older ones never', () => {
    const c = chain(3);
    const active = sha256(c[3] as string);
    const at = (iso: string) => ({ refreshTokenPreviousAt: new Date(iso) });
    expect(
      decideReuse({
        ...base,
        presented: c[1] as string,
        activeHash: active,
        session: at('2025-01-01T00:00:05Z'),
      }),
    ).toEqual({ kind: 'return-active', token: c[3], depth: 2 });
    expect(
      decideReuse({
        ...base,
        presented: c[1] as string,
        activeHash: active,
        session: at('2024-12-31T23:59:00Z'),
      }),
    ).toEqual({ kind: 'revoke-family' });
    // Three rotations back: its rotation time is not kept, so it is a replay even within the interval.
    expect(
      decideReuse({
        ...base,
        presented: c[0] as string,
        activeHash: active,
        session: at('2025-01-01T00:00:09Z'),
      }),
    ).toEqual({ kind: 'revoke-family' });
  });

  it('treats a token that does not lead to the active one as unknown (no revocation), unless its own row proves it was issued', () => {
    const c = chain(1);
    const active = sha256(c[1] as string);
    const forged = newRefreshToken(sessionId);
    expect(decideReuse({ ...base, presented: forged, activeHash: active })).toEqual({ kind: 'unknown' });
    const long = chain(MAX_CHAIN_WALK + 1);
    expect(
      decideReuse({ ...base, presented: long[0] as string, activeHash: sha256(long.at(-1) as string) }),
    ).toEqual({ kind: 'unknown' });
    // A pre-format token (a row of this session) that is not an ancestor: a replay of a rotated token.
    expect(
      decideReuse({ ...base, presented: 'legacy-token-0123456789', activeHash: active, rowRevokedAt: now }),
    ).toEqual({ kind: 'revoke-family' });
  });

  it('follows a pre-format token by the rotation time its row records', () => {
    const l0 = 'legacy-root-token-0123456789abcdefghijklmnop';
    const l1 = legacyChildRefreshToken(secret, l0);
    const n1 = childRefreshToken(secret, sessionId, l1);
    const activeHash = sha256(n1);
    expect(
      decideReuse({ ...base, presented: l0, activeHash, rowRevokedAt: new Date('2025-01-01T00:00:05Z') }),
    ).toEqual({ kind: 'return-active', token: n1, depth: 2 });
    expect(decideReuse({ ...base, presented: l0, activeHash, rowRevokedAt: new Date('2024-01-01') })).toEqual(
      {
        kind: 'revoke-family',
      },
    );
  });

  it('reports a session without an active token', () => {
    expect(decideReuse({ ...base, presented: 'x', activeHash: undefined })).toEqual({ kind: 'session-gone' });
  });
});
