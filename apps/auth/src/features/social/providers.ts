// The identity providers: how each is reached (openid-client: discovery for OpenID Connect
// providers, fixed endpoints for GitHub and X) and how its answer becomes GoTrue's identity data.
// No protocol code of our own: openid-client builds the authorization URL, exchanges the code
// (PKCE, state, ID-token claims and nonce), and jose checks the ID token's signature against the
// provider's published keys (openid-client trusts an ID token from the token endpoint by TLS alone).

import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { SOCIAL_PROVIDERS, type SocialProviderConfig, type SocialProviderName } from '../../config.ts';
import type { Deps } from '../../core/deps.ts';
import { issuerFor } from '../../core/issue-session.ts';
import { AuthError } from '../../errors.ts';

export type ProviderKind = 'oidc' | 'github' | 'x';

type ProviderInfo = {
  kind: ProviderKind;
  /** Scopes always asked for; the client's `scopes` are added. */
  scopes: string[];
  /** Apple posts the answer back (`response_mode=form_post`) when it is asked for name or email. */
  formPost?: boolean;
};

const INFO: Record<SocialProviderName, ProviderInfo> = {
  google: { kind: 'oidc', scopes: ['openid', 'email', 'profile'] },
  apple: { kind: 'oidc', scopes: ['openid', 'email', 'name'], formPost: true },
  azure: { kind: 'oidc', scopes: ['openid', 'email', 'profile'] },
  github: { kind: 'github', scopes: ['read:user', 'user:email'] },
  x: { kind: 'x', scopes: ['users.read', 'tweet.read'] },
  oidc: { kind: 'oidc', scopes: ['openid', 'email', 'profile'] },
};

/** Providers that sign in with an ID token (`signInWithIdToken`). */
export const ID_TOKEN_PROVIDERS: readonly SocialProviderName[] = ['google', 'apple', 'azure', 'oidc'];

export function isProviderName(name: string): name is SocialProviderName {
  return (SOCIAL_PROVIDERS as readonly string[]).includes(name);
}

export function providerInfo(name: SocialProviderName): ProviderInfo {
  return INFO[name];
}

/** The enabled provider of that name, or GoTrue's 400 validation_failed. */
export function enabledProvider(
  deps: Deps,
  name: string,
): SocialProviderConfig & { name: SocialProviderName } {
  if (!isProviderName(name))
    throw new AuthError(
      'validation_failed',
      `Unsupported provider: provider ${name.slice(0, 100)} could not be found`,
    );
  const cfg = deps.config.social.providers[name];
  if (!cfg.enabled) throw new AuthError('validation_failed', 'Unsupported provider: Provider is not enabled');
  return { ...cfg, name };
}

/** The callback URL registered with the provider. */
export function callbackUrl(deps: Deps, cfg: SocialProviderConfig): string {
  return cfg.redirectUri ?? `${issuerFor(deps)}/callback`;
}

const TIMEOUT_S = 10;

/**
 * The openid-client configuration of a provider, made once (OpenID providers: discovered at first
 * use, not at start-up, so a provider that is down delays no start; a failed discovery is retried
 * by the next sign-in). Plain http is allowed only for loopback issuers (config.ts refuses others).
 */
const configurations = new WeakMap<SocialProviderConfig, Promise<oidc.Configuration>>();

export function providerConfiguration(
  name: SocialProviderName,
  cfg: SocialProviderConfig,
): Promise<oidc.Configuration> {
  let pending = configurations.get(cfg);
  if (!pending) {
    pending = makeConfiguration(name, cfg);
    configurations.set(cfg, pending);
    pending.catch(() => configurations.delete(cfg));
  }
  return pending;
}

async function makeConfiguration(
  name: SocialProviderName,
  cfg: SocialProviderConfig,
): Promise<oidc.Configuration> {
  const clientId = cfg.clientIds[0] ?? '';
  const insecure = cfg.url?.startsWith('http:') === true;
  const kind = INFO[name].kind;
  let config: oidc.Configuration;
  if (kind === 'oidc') {
    config = await oidc.discovery(
      new URL(cfg.url ?? ''),
      clientId,
      { client_secret: cfg.secret },
      undefined,
      { timeout: TIMEOUT_S, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) },
    );
  } else if (kind === 'github') {
    const origin = cfg.url ?? 'https://github.com';
    config = new oidc.Configuration(
      {
        issuer: origin,
        authorization_endpoint: `${origin}/login/oauth/authorize`,
        token_endpoint: `${origin}/login/oauth/access_token`,
      },
      clientId,
      { client_secret: cfg.secret },
      oidc.ClientSecretPost(cfg.secret),
    );
  } else {
    // X's two hosts, or the one origin EXTERNAL_X_URL puts in their place (GoTrue's rule).
    const { web, api } = xHosts(cfg);
    config = new oidc.Configuration(
      {
        issuer: web,
        authorization_endpoint: `${web}/i/oauth2/authorize`,
        token_endpoint: `${api}/2/oauth2/token`,
      },
      clientId,
      { client_secret: cfg.secret },
      oidc.ClientSecretBasic(cfg.secret),
    );
  }
  config.timeout = TIMEOUT_S;
  if (insecure) oidc.allowInsecureRequests(config);
  return config;
}

/** Where X signs in (`web`) and where its token endpoint and API are (`api`). */
function xHosts(cfg: SocialProviderConfig): { web: string; api: string } {
  return cfg.url ? { web: cfg.url, api: cfg.url } : { web: 'https://x.com', api: 'https://api.x.com' };
}

const keySets = new WeakMap<oidc.Configuration, ReturnType<typeof createRemoteJWKSet>>();

/**
 * Verifies an ID token with jose: the signature against the provider's JWKS (fetched and cached by
 * jose, re-fetched when an unknown `kid` appears), the issuer, one of our client ids as audience,
 * and the expiry. Anything wrong is GoTrue's 400 "Bad ID token".
 */
export async function verifyIdToken(
  config: oidc.Configuration,
  cfg: SocialProviderConfig,
  idToken: string,
): Promise<JWTPayload> {
  const meta = config.serverMetadata();
  if (!meta.jwks_uri)
    throw new AuthError('oauth_invalid_request', 'Bad ID token', { oauth: 'invalid request' });
  let keys = keySets.get(config);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(meta.jwks_uri), { timeoutDuration: TIMEOUT_S * 1000 });
    keySets.set(config, keys);
  }
  try {
    const { payload } = await jwtVerify(idToken, keys, {
      issuer: meta.issuer,
      audience: cfg.clientIds,
      requiredClaims: ['sub', 'exp', 'iat'],
      clockTolerance: 30,
    });
    return payload;
  } catch {
    throw new AuthError('oauth_invalid_request', 'Bad ID token', { oauth: 'invalid request' });
  }
}

/** What a provider says about its account, as GoTrue keeps it. */
export type ProviderProfile = {
  providerId: string;
  email: string | null;
  emailVerified: boolean;
  /** GoTrue's identity_data (also merged into the user's user_metadata). */
  data: Record<string, unknown>;
};

const verifiedFlag = (v: unknown) => v === true || v === 'true';
const text = (v: unknown, max = 2048) =>
  typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined;

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** GoTrue's identity data from OpenID claims (the ID token, completed by the userinfo answer). */
export function profileFromClaims(claims: Record<string, unknown>, extraName?: string): ProviderProfile {
  const sub = text(claims.sub, 255);
  if (!sub) throw new AuthError('oauth_invalid_request', 'Bad ID token', { oauth: 'invalid request' });
  const email = text(claims.email, 320)?.toLowerCase() ?? null;
  const emailVerified = email !== null && verifiedFlag(claims.email_verified);
  const name = text(claims.name, 500) ?? extraName;
  const picture = text(claims.picture);
  return {
    providerId: sub,
    email,
    emailVerified,
    data: compact({
      iss: text(claims.iss),
      sub,
      provider_id: sub,
      email: email ?? undefined,
      email_verified: emailVerified,
      phone_verified: false,
      name,
      full_name: name,
      given_name: text(claims.given_name, 500),
      family_name: text(claims.family_name, 500),
      preferred_username: text(claims.preferred_username, 500),
      picture,
      avatar_url: picture,
    }),
  };
}

async function getJson(config: oidc.Configuration, token: string, url: string): Promise<unknown> {
  const res = await oidc.fetchProtectedResource(config, token, new URL(url), 'GET');
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

/** GitHub: the user and its verified primary address (`/user/emails`). */
export async function githubProfile(config: oidc.Configuration, cfg: SocialProviderConfig, token: string) {
  const api = !cfg.url || cfg.url === 'https://github.com' ? 'https://api.github.com' : `${cfg.url}/api/v3`;
  const user = (await getJson(config, token, `${api}/user`)) as Record<string, unknown>;
  const emails = (await getJson(config, token, `${api}/user/emails`)) as {
    email?: string;
    primary?: boolean;
    verified?: boolean;
  }[];
  const primary = Array.isArray(emails) ? emails.find((e) => e.primary) : undefined;
  const id = user.id === undefined ? undefined : String(user.id);
  return withUserName(
    user.login,
    profileFromClaims({
      iss: api,
      sub: id,
      email: primary?.email ?? user.email,
      email_verified: primary?.verified === true,
      name: user.name ?? user.login,
      preferred_username: user.login,
      picture: user.avatar_url,
    }),
  );
}

/** GoTrue's `user_name` (its older key for the login, beside `preferred_username`) for GitHub and X. */
function withUserName(login: unknown, profile: ProviderProfile): ProviderProfile {
  const userName = text(login, 500);
  return userName ? { ...profile, data: { ...profile.data, user_name: userName } } : profile;
}

/** X: `/2/users/me` (X shares no email address, so such an account never links by email). */
export async function xProfile(config: oidc.Configuration, cfg: SocialProviderConfig, token: string) {
  const { api } = xHosts(cfg);
  const me = (await getJson(config, token, `${api}/2/users/me?user.fields=profile_image_url`)) as {
    data?: Record<string, unknown>;
  };
  const d = me.data ?? {};
  return withUserName(
    d.username,
    profileFromClaims({
      iss: api,
      sub: d.id === undefined ? undefined : String(d.id),
      name: d.name,
      preferred_username: d.username,
      picture: d.profile_image_url,
    }),
  );
}
