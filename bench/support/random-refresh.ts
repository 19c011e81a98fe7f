/**
 * The refresh load of the scale benchmarks: each request refreshes a random session of the loaded
 * data with its current token, never one whose refresh is still in flight (a second refresh with
 * the same token would be a replay), and keeps the rotated token for that session's next turn.
 */
import type autocannon from 'autocannon';
import { activeTokenOf } from '../../apps/auth/test/support/scale-data.ts';

export type SessionTokens = {
  /** The session's current refresh token: the last one a refresh returned, or the loaded one. */
  tokenOf(j: number): string;
  /** Records the token a refresh made outside `requests()` returned. */
  rotated(j: number, token: string): void;
  /** The random sessions' requests for autocannon (`requests:`), rotating the tokens they use. */
  requests(): NonNullable<autocannon.Options['requests']>;
};

/** Session numbers 0 … sessionsTotal − 1 (scale-data.ts's `j`). */
export function randomSessionTokens(sessionsTotal: number): SessionTokens {
  const tokens = new Map<number, string>();
  const busy = new Set<number>();
  const pick = () => Math.floor(Math.random() * sessionsTotal);
  const tokenOf = (j: number) => tokens.get(j) ?? activeTokenOf(j);
  return {
    tokenOf,
    rotated: (j, token) => {
      tokens.set(j, token);
    },
    requests: () => [
      {
        setupRequest: (req, context: Record<string, unknown>) => {
          let j = pick();
          while (busy.has(j)) j = pick();
          busy.add(j);
          context.j = j;
          return { ...req, body: JSON.stringify({ refresh_token: tokenOf(j) }) };
        },
        onResponse: (status, body, context: Record<string, unknown>) => {
          const j = context.j as number;
          busy.delete(j);
          if (status === 200) tokens.set(j, JSON.parse(body).refresh_token);
        },
      },
    ],
  };
}
