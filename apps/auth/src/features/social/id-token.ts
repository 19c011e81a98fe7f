// POST /token?grant_type=id_token (`signInWithIdToken`): a native app or Google One Tap hands us
// the provider's ID token. It is verified like the callback's (signature against the provider's
// JWKS, issuer, one of our client ids as audience, expiry) and its nonce against the request's
// (GoTrue: the token carries the SHA-256, in hex, of the nonce the app sent). Providers that are
// not enabled get GoTrue's answers from features/switched-off.
import { createHash } from 'node:crypto';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import type { Session } from '../../core/http/response-schemas.ts';
import { AuthError } from '../../errors.ts';
import { idTokenGrant as disabledIdTokenGrant, type IdTokenGrantInput } from '../switched-off/index.ts';
import {
  ID_TOKEN_PROVIDERS,
  isProviderName,
  profileFromClaims,
  providerConfiguration,
  verifyIdToken,
} from './providers.ts';
import { signInWithProfile } from './sign-in.ts';

const invalidRequest = (description: string, oauth = 'invalid request') =>
  new AuthError('oauth_invalid_request', description, { oauth });

export type IdTokenInput = IdTokenGrantInput & {
  nonce?: string | undefined;
  access_token?: string | undefined;
};

/** The enabled provider the request names, by name or by issuer (+ client id). */
function pickProvider(deps: Deps, input: IdTokenInput) {
  const providers = deps.config.social.providers;
  const name = input.provider ?? '';
  if (isProviderName(name) && ID_TOKEN_PROVIDERS.includes(name) && providers[name].enabled)
    return { name, cfg: providers[name] };
  if (name === '' && input.issuer && input.client_id) {
    const issuer = input.issuer.replace(/\/+$/, '');
    for (const n of ID_TOKEN_PROVIDERS) {
      const cfg = providers[n];
      if (cfg.enabled && cfg.url === issuer && cfg.clientIds.includes(input.client_id))
        return { name: n, cfg };
    }
  }
  return undefined;
}

export async function idTokenGrant(
  deps: Deps,
  input: IdTokenInput,
  bearer: string | undefined,
  meta: RequestMeta,
): Promise<Session> {
  const picked = pickProvider(deps, input);
  // Not one of ours: exactly GoTrue's answer for a provider that is off.
  if (!picked) return disabledIdTokenGrant(input, bearer !== undefined);
  if (!input.id_token) throw invalidRequest('id_token required');
  let linkUserId: string | undefined;
  if (input.link_identity) {
    if (!bearer) throw invalidRequest('Linking requires a valid user access token in Authorization');
    if (!deps.config.social.manualLinking) throw new AuthError('manual_linking_disabled');
    const token = bearer.match(/^Bearer\s+(\S+)$/i)?.[1] ?? '';
    try {
      const claims = await deps.keys.verify(token);
      linkUserId = typeof claims.sub === 'string' ? claims.sub : undefined;
    } catch {
      throw new AuthError('bad_jwt');
    }
    if (!linkUserId) throw new AuthError('bad_jwt');
  }
  const config = await providerConfiguration(picked.name, picked.cfg).catch((err: Error) => {
    throw new AuthError(
      'provider_error',
      `The identity provider could not be reached: ${err.message.slice(0, 200)}`,
    );
  });
  const claims = await verifyIdToken(config, picked.cfg, input.id_token);
  if (typeof claims.nonce === 'string' && claims.nonce !== '') {
    if (!input.nonce) throw invalidRequest("'nonce' in request body missing");
    const hash = createHash('sha256').update(input.nonce).digest('hex');
    if (hash !== claims.nonce) throw invalidRequest('Nonces mismatch', 'invalid nonce');
  } else if (input.nonce) {
    // The app sent a nonce the token does not carry: it is not the token the app asked for.
    throw invalidRequest('Nonces mismatch', 'invalid nonce');
  }
  const profile = profileFromClaims(claims as Record<string, unknown>);
  const outcome = await signInWithProfile(deps, picked.name, profile, meta, { linkUserId });
  if ('code' in outcome) throw new AuthError('unexpected_failure');
  return outcome.session;
}
