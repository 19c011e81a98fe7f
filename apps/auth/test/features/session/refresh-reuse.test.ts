// Unit tests for the refresh-token reuse rules (features/session/refresh.ts): which replayed token gets
// the active one, and when a replay revokes the session.
import { describe, expect, it } from 'vitest';
import { childRefreshToken } from '../../../src/core/issue-session.ts';
import { sha256 } from '../../../src/crypto/tokens.ts';
import { decideReuse, MAX_CHAIN_WALK } from '../../../src/features/session/refresh.ts';

describe('refresh-token reuse rules', () => {
  const secret = 'test-secret';
  const chain = (start: string, n: number) => {
    const out = [start];
    for (let i = 0; i < n; i++) out.push(childRefreshToken(secret, out[out.length - 1] as string));
    return out;
  };
  const now = new Date('2025-01-01T00:00:10Z');
  const base = { secret, now, reuseIntervalSec: 10 };

  it('returns the active token to its parent, however long ago the parent was rotated', () => {
    const [t0, t1] = chain('start-token', 1) as [string, string];
    const d = decideReuse({
      ...base,
      presented: t0,
      activeHash: sha256(t1),
      revokedAt: new Date('2020-01-01'),
    });
    expect(d).toEqual({ kind: 'return-active', token: t1, depth: 1 });
  });

  it('returns the active token to an older ancestor only within the reuse interval', () => {
    const c = chain('start-token', 3);
    const active = sha256(c[3] as string);
    const inside = decideReuse({
      ...base,
      presented: c[0] as string,
      activeHash: active,
      revokedAt: new Date('2025-01-01T00:00:05Z'),
    });
    expect(inside).toEqual({ kind: 'return-active', token: c[3], depth: 3 });
    const outside = decideReuse({
      ...base,
      presented: c[0] as string,
      activeHash: active,
      revokedAt: new Date('2024-12-31T23:59:00Z'),
    });
    expect(outside).toEqual({ kind: 'revoke-family' });
  });

  it('revokes the family for a token that is not an ancestor, or too far back', () => {
    const other = chain('another', 1);
    expect(
      decideReuse({
        ...base,
        presented: 'unrelated-token',
        activeHash: sha256(other[1] as string),
        revokedAt: now,
      }),
    ).toEqual({ kind: 'revoke-family' });
    const long = chain('start', MAX_CHAIN_WALK + 1);
    expect(
      decideReuse({
        ...base,
        presented: long[0] as string,
        activeHash: sha256(long.at(-1) as string),
        revokedAt: now,
      }),
    ).toEqual({ kind: 'revoke-family' });
  });

  it('reports a session without an active token', () => {
    expect(decideReuse({ ...base, presented: 'x', activeHash: undefined, revokedAt: now })).toEqual({
      kind: 'session-gone',
    });
  });

  it('derives children that depend on the server secret', () => {
    expect(childRefreshToken('a', 'parent')).not.toBe(childRefreshToken('b', 'parent'));
    expect(childRefreshToken('a', 'parent')).toBe(childRefreshToken('a', 'parent'));
  });
});
