// A provider's account is known (callback or ID token): the account, then a session (implicit flow,
// ID-token grant) or an auth code the client exchanges with its PKCE verifier.
import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { issueSession, startSession } from '../../core/issue-session.ts';
import { issueCompletedFlow, type PkceParams, type ProviderTokens } from '../../core/pkce.ts';
import { isUniqueViolation } from '../../db/client.ts';
import { accountForProfile, admitUser } from './accounts.ts';
import type { ProviderProfile } from './providers.ts';

/** GoTrue's `amr` method for a third-party sign-in. */
export const OAUTH_AMR = 'oauth';

export type SignInOutcome = { session: Session } | { code: string };

export async function signInWithProfile(
  deps: Deps,
  provider: string,
  profile: ProviderProfile,
  meta: RequestMeta,
  opts: {
    linkUserId?: string | null | undefined;
    pkce?: PkceParams | undefined;
    /** The provider's tokens, kept (sealed) with a PKCE flow for the code exchange. */
    providerTokens?: ProviderTokens | undefined;
  },
): Promise<SignInOutcome> {
  const attempt = () =>
    deps.db.transaction(async (tx) => {
      const account = await accountForProfile(deps, tx, provider, profile, meta, opts.linkUserId);
      const user = await admitUser(deps, tx, account, provider, meta);
      if (opts.pkce) {
        const code = await issueCompletedFlow(deps, tx, {
          userId: user.id,
          pkce: opts.pkce,
          providerType: provider,
          authenticationMethod: OAUTH_AMR,
          providerTokens: opts.providerTokens,
        });
        return { kind: 'code', code } as const;
      }
      const started = await startSession(deps, tx, user, OAUTH_AMR, meta);
      return { kind: 'session', user, ...started } as const;
    });
  let result: Awaited<ReturnType<typeof attempt>>;
  try {
    result = await attempt();
  } catch (err) {
    // Two first sign-ins of one account at once: the loser's identity insert collides; once more,
    // it finds the identity the winner made.
    if (!isUniqueViolation(err)) throw err;
    result = await attempt();
  }
  if (result.kind === 'code') return { code: result.code };
  return { session: await issueSession(deps, result) };
}
