// GET|POST /callback: the provider sends the browser back with `code` and `state` (Apple posts
// them, form_post). The stored sign-in is taken once by its state; the code is exchanged and the
// ID token checked (openid-client: state, PKCE, issuer, audience, expiry, nonce; jose: signature);
// then the browser goes to the validated redirect_to with `?code=` (PKCE) or the session in the
// fragment (implicit). The provider's own tokens go back as GoTrue's do: in that fragment, or with
// the session the code is exchanged for (core/pkce.ts keeps them sealed until then); never logged.
// Failures go there too, as `error`, `error_code` and `error_description` (query and fragment for
// PKCE, fragment for implicit; both when the state is unknown).
import * as oidc from 'openid-client';
import type { Deps, RequestMeta } from '../../core/deps.ts';
import { type PkceParams, type ProviderTokens, providerTokenFields } from '../../core/pkce.ts';
import { sha256 } from '../../crypto/tokens.ts';
import { consumeOAuthState, type OAuthStateRow } from '../../db/oauth-states.repo.ts';
import { AuthError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import {
  callbackUrl,
  githubProfile,
  isProviderName,
  type ProviderProfile,
  profileFromClaims,
  providerConfiguration,
  providerInfo,
  verifyIdToken,
  xProfile,
} from './providers.ts';
import { signInWithProfile } from './sign-in.ts';

export type CallbackParams = {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
  iss?: string | undefined;
  /** Apple's first sign-in: `{"name":{"firstName","lastName"},"email"}`. */
  user?: string | undefined;
};

type Failure = { error: string; code: string; description: string };

function withResult(
  redirectTo: string,
  where: 'query' | 'fragment' | 'both',
  params: Record<string, string>,
): string {
  const url = new URL(redirectTo);
  if (where !== 'fragment') for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (where !== 'query') url.hash = new URLSearchParams(params).toString();
  return url.href;
}

function failureUrl(redirectTo: string, where: 'query' | 'fragment' | 'both', f: Failure): string {
  return withResult(redirectTo, where === 'query' ? 'both' : where, {
    error: f.error,
    error_code: f.code,
    error_description: f.description,
  });
}

function appleName(user: string | undefined): string | undefined {
  if (!user || user.length > 2000) return undefined;
  try {
    const parsed = JSON.parse(user) as { name?: { firstName?: unknown; lastName?: unknown } };
    const parts = [parsed.name?.firstName, parsed.name?.lastName].filter((p) => typeof p === 'string' && p);
    return parts.length > 0 ? parts.join(' ').slice(0, 500) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The provider's account behind the code, and the provider's tokens (throws AuthError
 * provider_error / bad_oauth_callback).
 */
async function exchange(
  deps: Deps,
  row: OAuthStateRow,
  state: string,
  p: CallbackParams,
): Promise<{ profile: ProviderProfile; tokens: ProviderTokens }> {
  const name = row.provider;
  if (!isProviderName(name) || !deps.config.social.providers[name].enabled)
    throw new AuthError('validation_failed', 'Unsupported provider: Provider is not enabled');
  const cfg = deps.config.social.providers[name];
  const kind = providerInfo(name).kind;
  const config = await providerConfiguration(name, cfg).catch((err: Error) => {
    throw new AuthError(
      'bad_oauth_callback',
      `The identity provider could not be reached: ${err.message.slice(0, 200)}`,
    );
  });
  const current = new URL(callbackUrl(deps, cfg));
  current.search = '';
  for (const [k, v] of Object.entries({ code: p.code, state, iss: p.iss }))
    if (v !== undefined) current.searchParams.set(k, v);
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: row.providerVerifier,
      expectedState: state,
      ...(row.nonce ? { expectedNonce: row.nonce } : {}),
      idTokenExpected: kind === 'oidc',
    });
  } catch (err) {
    throw new AuthError(
      'bad_oauth_callback',
      `Unable to exchange external code: ${(err as Error).message.slice(0, 200)}`,
    );
  }
  const providerTokens = { accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  if (kind === 'github' || kind === 'x') {
    const token = tokens.access_token;
    const profile = await (kind === 'github'
      ? githubProfile(config, cfg, token)
      : xProfile(config, cfg, token)
    ).catch((err: Error) => {
      if (err instanceof AuthError) throw err;
      // An API that fails or answers garbage is the provider's fault: the visitor goes back to the
      // site with GoTrue's description, not to a 500 page; the cause stays in the log.
      deps.logger.warn({ provider: name, err: err.message.slice(0, 200) }, 'provider profile failed');
      throw new AuthError('bad_oauth_callback', 'Error getting user profile from external provider');
    });
    return { profile, tokens: providerTokens };
  }
  // The claims were checked by openid-client; the signature is checked here against the JWKS.
  await verifyIdToken(config, cfg, tokens.id_token ?? '').catch(() => {
    throw new AuthError('bad_oauth_callback', 'Bad ID token');
  });
  const claims: Record<string, unknown> = tokens.claims() ?? {};
  let info: Record<string, unknown> = {};
  if (config.serverMetadata().userinfo_endpoint) {
    try {
      info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
    } catch (err) {
      // The ID token suffices; the profile only completes it.
      deps.logger.warn({ provider: name, err: (err as Error).message.slice(0, 200) }, 'userinfo failed');
    }
  }
  return { profile: profileFromClaims({ ...info, ...claims }, appleName(p.user)), tokens: providerTokens };
}

export async function completeAuthorization(
  deps: Deps,
  p: CallbackParams,
  meta: RequestMeta,
  log: Logger,
): Promise<string> {
  const site = deps.config.SITE_URL;
  if (!p.state)
    return failureUrl(site, 'both', {
      error: 'invalid_request',
      code: 'bad_oauth_state',
      description: 'OAuth state parameter missing',
    });
  const row = await consumeOAuthState(deps.db, sha256(p.state));
  if (!row)
    return failureUrl(site, 'both', {
      error: 'invalid_request',
      code: 'bad_oauth_state',
      description: 'OAuth state is invalid or has already been used',
    });
  const pkce: PkceParams | undefined =
    row.codeChallenge && row.codeChallengeMethod
      ? { challenge: row.codeChallenge, method: row.codeChallengeMethod as PkceParams['method'] }
      : undefined;
  const where = pkce ? 'query' : 'fragment';
  if (row.expiresAt <= deps.clock())
    return failureUrl(row.redirectTo, where, {
      error: 'invalid_request',
      code: 'bad_oauth_state',
      description: 'OAuth state has expired',
    });
  if (p.error)
    return failureUrl(row.redirectTo, where, {
      // The provider's own answer (access_denied when the visitor said no), passed on.
      error: /^[a-z_]{1,64}$/.test(p.error) ? p.error : 'server_error',
      code: 'provider_error',
      description: (p.error_description ?? p.error).slice(0, 500),
    });
  if (!p.code)
    return failureUrl(row.redirectTo, where, {
      error: 'invalid_request',
      code: 'bad_oauth_callback',
      description: 'OAuth callback with missing authorization code',
    });
  try {
    const { profile, tokens } = await exchange(deps, row, p.state, p);
    const outcome = await signInWithProfile(deps, row.provider, profile, meta, {
      linkUserId: row.linkUserId,
      pkce,
      providerTokens: tokens,
    });
    if ('code' in outcome) return withResult(row.redirectTo, 'query', { code: outcome.code });
    const s = outcome.session;
    // GoTrue's fragment: `provider_refresh_token` only when the provider gave one, `sb` the empty
    // marker telling clients the redirect is Supabase Auth's, the keys sorted (Go's url.Values).
    const fragment = Object.entries({
      access_token: s.access_token,
      expires_at: String(s.expires_at),
      expires_in: String(s.expires_in),
      ...providerTokenFields(tokens),
      refresh_token: s.refresh_token,
      sb: '',
      token_type: 'bearer',
    }).sort(([a], [b]) => (a < b ? -1 : 1));
    return withResult(row.redirectTo, 'fragment', Object.fromEntries(fragment));
  } catch (err) {
    if (!(err instanceof AuthError) || err.status >= 500) throw err;
    log.warn(
      { provider: row.provider, code: err.code, msg: err.message.slice(0, 200) },
      'social sign-in refused',
    );
    return failureUrl(row.redirectTo, where, {
      error: err.code === 'bad_oauth_callback' ? 'server_error' : 'access_denied',
      code: err.code,
      description: err.message,
    });
  }
}
