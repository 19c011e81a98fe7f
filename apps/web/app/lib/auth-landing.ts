/**
 * What an email link leaves in the URL when it lands on the site, and what came of it.
 *
 * Links use PKCE: the service confirms the address at /verify and redirects to `?code=<auth code>`,
 * which only the browser holding the sign-up's (or recovery's) code verifier can exchange for a
 * session. A failed link redirects with `error`, `error_code` and `error_description` (in the
 * fragment, and for PKCE links in the query too). Tokens in the fragment (`#access_token=…`) are an
 * implicit-flow result, which this site no longer asks for: they are removed and never used, so a
 * crafted link carrying someone else's tokens signs nobody in (login CSRF).
 */
export type AuthLanding = {
  code?: string;
  error?: { code: string; description: string };
  /** The fragment carried session tokens (an old implicit link, or a crafted one): ignored. */
  foreignTokens: boolean;
};

export type LandingOutcome =
  /** The code was exchanged: signed in (`recovery`: by a password-recovery link). */
  | { kind: 'signed-in'; recovery: boolean }
  /**
   * The link worked at the service (the address is confirmed) but cannot sign in here: opened in
   * another browser than the one that asked for it (no verifier), or an implicit-flow link.
   */
  | { kind: 'no-session' }
  /** The link failed: expired, used, unknown or refused. */
  | { kind: 'link-failed'; problem: LinkProblem };

/**
 * `provider`: a sign-in with Google, Apple … came back refused (the visitor cancelled, the provider
 * failed, the sign-in took too long); `provider-email`: that provider's address belongs to an
 * account it may not open (unconfirmed there, or not verified by the provider).
 */
export type LinkProblem = 'expired' | 'invalid' | 'provider' | 'provider-email';

/** The service's codes for a third-party sign-in that did not work (features/social). */
const PROVIDER_CODES =
  /^(provider_error|bad_oauth_state|bad_oauth_callback|identity_already_exists|signup_disabled|user_banned|validation_failed)$/;

const QUERY_KEYS = ['code', 'error', 'error_code', 'error_description', 'sb_flow_id'] as const;
const FRAGMENT_KEYS = ['access_token', 'refresh_token', 'error', 'error_code', 'error_description'] as const;

/** Reads an email link's result from a URL's query and fragment (no side effects). */
export function parseAuthLanding(search: string, hash: string): AuthLanding | undefined {
  const query = new URLSearchParams(search);
  const fragment = new URLSearchParams(hash.replace(/^#/, ''));
  const read = (key: string) => query.get(key) ?? fragment.get(key) ?? undefined;
  const code = query.get('code') ?? undefined;
  const errorCode = read('error_code') ?? read('error');
  const description = read('error_description') ?? '';
  const foreignTokens = fragment.has('access_token') || fragment.has('refresh_token');
  if (!code && !errorCode && !description && !foreignTokens) return undefined;
  return {
    ...(code ? { code } : {}),
    ...(errorCode || description ? { error: { code: errorCode ?? '', description } } : {}),
    foreignTokens,
  };
}

/**
 * The URL without the link's parameters: the query keeps everything else (e.g. `?mode=`), the
 * fragment goes when it held auth keys (the service's fragment holds nothing else).
 */
export function cleanLandingUrl(pathname: string, search: string, hash: string): string {
  const query = new URLSearchParams(search);
  for (const key of QUERY_KEYS) query.delete(key);
  const fragment = new URLSearchParams(hash.replace(/^#/, ''));
  const authFragment = FRAGMENT_KEYS.some((key) => fragment.has(key));
  const rest = query.toString();
  return `${pathname}${rest ? `?${rest}` : ''}${authFragment ? '' : hash}`;
}

/**
 * The problem a failed link names, in the visitor's terms. The service answers an expired, used or
 * unknown link alike (`otp_expired`: "Email link is invalid or has expired"), and a PKCE code that
 * cannot be exchanged any more with `flow_state_expired` / `flow_state_not_found`: all "expired or
 * already used", whose next step is a new link. Anything else (`access_denied` without a known code,
 * a bad verifier) is an invalid link.
 */
export function linkProblem(errorCode: string | undefined): LinkProblem {
  if (errorCode === 'email_exists') return 'provider-email';
  if (errorCode && PROVIDER_CODES.test(errorCode)) return 'provider';
  return errorCode && /^(otp_expired|flow_state_expired|flow_state_not_found)$/.test(errorCode)
    ? 'expired'
    : 'invalid';
}
