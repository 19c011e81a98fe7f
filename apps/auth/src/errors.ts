// Every error the API can answer, in ONE table: code → HTTP status and GoTrue's message.
// Routes and domain functions throw `new AuthError('code')`; the app's error handler renders it in
// GoTrue's new or legacy JSON shape (see toErrorResponse).
// Only codes the service raises are listed: the client reads `error_code` as a plain string, so it
// needs no entry for a code we never send (GoTrue's flow_state_already_used, method_not_allowed and
// mfa_webauthn_enroll_not_enabled were dropped for that reason; a reused PKCE code answers
// flow_state_not_found, as the wire contract's table says). A new capability adds its codes here
// when it starts raising them.
import type { Context } from 'hono';

export const errorTable = {
  validation_failed: { status: 400, message: 'Validation failed' },
  bad_json: { status: 400, message: 'Could not parse request body as JSON' },
  request_entity_too_large: { status: 413, message: 'Request body too large' },
  not_found: { status: 404, message: 'Not found' },
  no_api_key: { status: 401, message: 'No API key found in request' },
  invalid_api_key: { status: 401, message: 'Invalid API key' },
  signup_disabled: { status: 422, message: 'Signups not allowed for this instance' },
  otp_disabled: { status: 422, message: 'Signups not allowed for otp' },
  anonymous_provider_disabled: { status: 422, message: 'Anonymous sign-ins are disabled' },
  phone_provider_disabled: { status: 422, message: 'Phone signups are disabled' },
  user_already_exists: { status: 422, message: 'User already registered' },
  email_exists: { status: 422, message: 'A user with this email address has already been registered' },
  phone_exists: { status: 422, message: 'A user with this phone number has already been registered' },
  weak_password: { status: 422, message: 'Password should be at least 6 characters.' },
  same_password: { status: 422, message: 'New password should be different from the old password.' },
  invalid_credentials: { status: 400, message: 'Invalid login credentials' },
  email_not_confirmed: { status: 400, message: 'Email not confirmed' },
  phone_not_confirmed: { status: 400, message: 'Phone not confirmed' },
  user_banned: { status: 400, message: 'User is banned' },
  unsupported_grant_type: { status: 400, message: 'unsupported_grant_type' },
  refresh_token_not_found: { status: 400, message: 'Invalid Refresh Token: Refresh Token Not Found' },
  refresh_token_already_used: { status: 400, message: 'Invalid Refresh Token: Already Used' },
  session_expired: { status: 400, message: 'Invalid Refresh Token: Session Expired' },
  session_not_found: { status: 403, message: 'Session from session_id claim in JWT does not exist' },
  no_authorization: { status: 401, message: 'This endpoint requires a valid Bearer token' },
  bad_jwt: { status: 403, message: 'invalid JWT: unable to parse or verify signature' },
  user_not_found: { status: 403, message: 'User from sub claim in JWT does not exist' },
  // The service-role guard's answer to any other caller (core/http/guards.ts; GoTrue's 403).
  not_admin: { status: 403, message: 'User not allowed' },
  otp_expired: { status: 403, message: 'Token has expired or is invalid' },
  flow_state_not_found: { status: 404, message: 'invalid flow state, no valid flow state found' },
  flow_state_expired: { status: 422, message: 'Flow state has expired' },
  bad_code_verifier: { status: 400, message: 'code challenge does not match previously saved code verifier' },
  reauthentication_needed: { status: 400, message: 'Password update requires reauthentication' },
  reauthentication_not_valid: { status: 422, message: 'Nonce has expired or is invalid' },
  insufficient_aal: {
    status: 401,
    message: 'AAL2 session is required to update email or password when MFA is enabled.',
  },
  mfa_factor_not_found: { status: 404, message: 'Factor not found' },
  // Passkeys (features/passkeys), GoTrue's codes and messages.
  passkey_disabled: { status: 404, message: 'Passkeys are disabled' },
  webauthn_challenge_not_found: { status: 400, message: 'Challenge not found or already used' },
  webauthn_challenge_expired: { status: 400, message: 'Challenge has expired' },
  webauthn_verification_failed: { status: 400, message: 'Credential verification failed' },
  webauthn_credential_exists: { status: 422, message: 'This credential is already registered' },
  too_many_passkeys: { status: 422, message: 'Maximum number of passkeys reached' },
  mfa_factor_name_conflict: {
    status: 422,
    message: 'A factor with the friendly name already exists for this user',
  },
  too_many_enrolled_mfa_factors: { status: 422, message: 'Maximum number of enrolled factors reached' },
  mfa_challenge_expired: {
    status: 422,
    message: 'MFA challenge has expired, verify against another challenge',
  },
  mfa_ip_address_mismatch: { status: 422, message: 'Challenge and verify IP addresses mismatch.' },
  mfa_verification_failed: { status: 422, message: 'Invalid TOTP code entered' },
  mfa_verified_factor_exists: {
    status: 422,
    message: 'A verified phone factor already exists, unenroll the existing factor to continue',
  },
  mfa_phone_enroll_not_enabled: { status: 422, message: 'MFA enroll is disabled for Phone' },
  // Recovery codes (features/mfa/recovery-codes.ts): GoTrue's codes (supabase/auth #2762, #2764,
  // #2772, #2787; the list in supabase-flutter #1800).
  mfa_recovery_codes_enroll_disabled: { status: 422, message: 'MFA enroll is disabled for recovery codes' },
  mfa_recovery_codes_verify_disabled: {
    status: 422,
    message: 'MFA verification is disabled for recovery codes',
  },
  mfa_recovery_codes_locked: {
    status: 429,
    message: 'Too many failed recovery code attempts, try again later',
  },
  mfa_recovery_codes_sole_factor: {
    status: 422,
    message: 'Recovery codes cannot be the only MFA factor: enroll and verify another factor first',
  },
  // Features we do not offer, answered as a GoTrue with them switched off (features/switched-off).
  saml_provider_disabled: { status: 404, message: 'SAML 2.0 is disabled' },
  manual_linking_disabled: { status: 404, message: 'Manual linking is disabled' },
  web3_provider_disabled: { status: 422, message: 'Web3 provider is disabled' },
  provider_disabled: { status: 400, message: 'Provider is not enabled' },
  // GoTrue's OAuth-style answer (400 {error, error_description}), e.g. the id_token grant's.
  oauth_invalid_request: { status: 400, message: 'invalid request' },
  // Social sign-in and identities (features/social).
  bad_oauth_state: { status: 400, message: 'OAuth state is invalid' },
  bad_oauth_callback: { status: 400, message: 'OAuth callback with missing authorization code' },
  provider_error: { status: 502, message: 'The identity provider could not be reached' },
  identity_already_exists: { status: 422, message: 'Identity is already linked to another user' },
  identity_not_found: { status: 404, message: "Identity doesn't exist" },
  single_identity_not_deletable: {
    status: 422,
    message: 'User must have at least 1 identity after unlinking',
  },
  over_sms_send_rate_limit: { status: 429, message: 'SMS rate limit exceeded' },
  sms_send_failed: { status: 500, message: 'Error sending SMS' },
  over_request_rate_limit: { status: 429, message: 'Request rate limit reached' },
  over_email_send_rate_limit: { status: 429, message: 'email rate limit exceeded' },
  conflict: {
    status: 409,
    message: 'Too many concurrent token refresh requests on the same session or refresh token',
  },
  // Auth hooks (core/hooks): GoTrue's codes and statuses. A hook's own refusal carries its status
  // and `unknown`, as in GoTrue.
  hook_timeout: { status: 422, message: 'Failed to reach hook within maximum time of 5.000000 seconds' },
  hook_timeout_after_retry: { status: 422, message: 'Failed to reach hook after maximum retries' },
  hook_payload_over_size_limit: {
    status: 422,
    message: 'Payload size exceeded size limit of 204800 bytes',
  },
  hook_payload_invalid_content_type: {
    status: 400,
    message: 'Invalid Content-Type: Missing Content-Type header',
  },
  captcha_failed: { status: 400, message: 'captcha protection: request disallowed' },
  mfa_verification_rejected: { status: 403, message: 'Further MFA verification attempts will be rejected.' },
  unknown: { status: 400, message: 'Unknown error' },
  service_unavailable: { status: 503, message: 'Service temporarily unavailable, please retry' },
  unexpected_failure: {
    status: 500,
    message: 'Unexpected failure, please check server logs for more information',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorTable;

export class AuthError extends Error {
  override name = 'AuthError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;
  /** Rendered in OAuth's shape, `{error: oauth, error_description: message}`, instead of GoTrue's. */
  readonly oauth: string | undefined;
  constructor(
    code: ErrorCode,
    message?: string,
    options?: {
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
      status?: number;
      oauth?: string;
    },
  ) {
    super(message ?? errorTable[code].message);
    this.code = code;
    this.status = options?.status ?? errorTable[code].status;
    this.extra = options?.extra;
    this.headers = options?.headers;
    this.oauth = options?.oauth;
  }
}

/**
 * GoTrue's words for a per-user send frequency (a mail or SMS floor, a phone factor's resend floor),
 * naming the seconds left; the site reads them when Retry-After is not exposed to it.
 */
export const frequencyMessage = (secondsLeft: number) =>
  `For security purposes, you can only request this after ${secondsLeft} seconds.`;

export const API_VERSION_HEADER = 'X-Supabase-Api-Version';
const API_VERSION_2024 = Date.parse('2024-01-01T00:00:00Z');

/** The API version the request asked for, when it is a valid date ≥ 2024-01-01 (GoTrue's rule). */
export function requestedApiVersion(header: string | undefined): string | undefined {
  if (!header || !/^2\d{3}-\d{2}-\d{2}$/.test(header)) return undefined;
  const time = Date.parse(`${header}T00:00:00Z`);
  if (Number.isNaN(time) || time < API_VERSION_2024) return undefined;
  return header;
}

/** Renders an AuthError in the shape the client expects, echoing the API version header. */
export function toErrorResponse(c: Context, err: AuthError, requestId?: string): Response {
  const version = requestedApiVersion(c.req.header(API_VERSION_HEADER));
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'x-sb-error-code': err.code,
    ...err.headers,
  };
  let body: Record<string, unknown>;
  if (err.oauth) {
    // GoTrue's OAuthError: always this body, whatever the API version (the client reads
    // error_description as the message).
    delete headers['x-sb-error-code'];
    body = { error: err.oauth, error_description: err.message };
  } else if (version) {
    headers[API_VERSION_HEADER] = version;
    body = { code: err.code, message: err.message, ...err.extra };
  } else {
    body = { code: err.status, error_code: err.code, msg: err.message, ...err.extra };
    if (err.status >= 500 && requestId) body.error_id = requestId;
  }
  return new Response(JSON.stringify(body), { status: err.status, headers });
}
