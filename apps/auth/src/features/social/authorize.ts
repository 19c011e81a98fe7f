// GET /authorize and GET /user/identities/authorize: where to send the browser. The sign-in in
// progress is stored (a SHA-256 of its `state`, single use, OAUTH_STATE_TTL_S), with the provider's
// PKCE verifier, the OpenID nonce, the validated redirect_to and the client's own PKCE challenge.
import * as oidc from 'openid-client';
import type { Deps } from '../../core/deps.ts';
import type { PkceParams } from '../../core/pkce.ts';
import { sha256 } from '../../crypto/tokens.ts';
import { insertOAuthState } from '../../db/oauth-states.repo.ts';
import { AuthError } from '../../errors.ts';
import { callbackUrl, enabledProvider, providerConfiguration, providerInfo } from './providers.ts';

/** How long a visitor has at the provider (signing in, a second factor, consent). */
export const OAUTH_STATE_TTL_S = 600;

/** Query parameters that are ours, never passed on to the provider. */
const RESERVED = new Set([
  'provider',
  'scopes',
  'redirect_to',
  'code_challenge',
  'code_challenge_method',
  'skip_http_redirect',
  'apikey',
  'state',
  'nonce',
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
]);

/** The client's extra parameters (supabase-js `queryParams`: `prompt`, `login_hint`, `access_type` …). */
export function extraParams(query: Record<string, string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, values] of Object.entries(query)) {
    if (RESERVED.has(key) || Object.keys(out).length >= 20) continue;
    const value = values[0];
    if (value !== undefined && key.length <= 100 && /^[\w.-]+$/.test(key)) out[key] = value;
  }
  return out;
}

export async function startAuthorization(
  deps: Deps,
  input: {
    provider: string;
    redirectTo: string;
    scopes: string | undefined;
    pkce: PkceParams | undefined;
    extra: Record<string, string>;
    linkUserId?: string | undefined;
  },
): Promise<string> {
  const cfg = enabledProvider(deps, input.provider);
  const info = providerInfo(cfg.name);
  let config: oidc.Configuration;
  try {
    config = await providerConfiguration(cfg.name, cfg);
  } catch (err) {
    throw new AuthError(
      'provider_error',
      `The identity provider could not be reached: ${(err as Error).message.slice(0, 200)}`,
    );
  }
  const state = oidc.randomState();
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = info.kind === 'oidc' ? oidc.randomNonce() : null;
  const scopes = [
    ...new Set([
      ...info.scopes,
      ...(input.scopes ?? '').split(/[\s,]+/).filter((s) => s.length > 0 && s.length <= 200),
    ]),
  ].slice(0, 50);
  const now = deps.clock();
  await insertOAuthState(deps.db, {
    stateHash: sha256(state),
    provider: cfg.name,
    redirectTo: input.redirectTo,
    providerVerifier: verifier,
    nonce,
    codeChallenge: input.pkce?.challenge ?? null,
    codeChallengeMethod: input.pkce?.method ?? null,
    linkUserId: input.linkUserId ?? null,
    expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_S * 1000),
    now,
  });
  const url = oidc.buildAuthorizationUrl(config, {
    ...input.extra,
    redirect_uri: callbackUrl(deps, cfg),
    scope: scopes.join(' '),
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
    ...(info.formPost ? { response_mode: 'form_post' } : {}),
  });
  return url.href;
}
