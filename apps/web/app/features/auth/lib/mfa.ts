/** The service's `error_code` of an auth-js error, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code =
    error && typeof error === 'object' && 'code' in error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A second factor that was simply wrong or too late: the code did not match
 * (`mfa_verification_failed`), or its challenge expired (`mfa_challenge_expired`). Those get the
 * page's own plain message; anything else (a rate limit, the service away) keeps its usual text.
 */
export function isWrongSecondFactor(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'mfa_verification_failed' || code === 'mfa_challenge_expired';
}

/** The phone factor's resend floor: a code went to the number moments ago (`MFA_PHONE_MAX_FREQUENCY`). */
export function isSmsFloor(error: unknown): boolean {
  return errorCode(error) === 'over_sms_send_rate_limit';
}

/**
 * Seconds until the service texts another code, after `over_sms_send_rate_limit`: its `Retry-After`
 * (see takeRetryAfter in lib/auth-client.ts), else the seconds its message names (GoTrue's "…you can
 * only request this after 42 seconds."; a hosted project may not expose the header across origins),
 * else GoTrue's default floor of 60 s.
 */
export function smsWaitSeconds(error: unknown, retryAfter: number | undefined): number {
  if (retryAfter !== undefined && retryAfter > 0) return retryAfter;
  const message =
    error && typeof error === 'object' && 'message' in error ? (error as { message?: unknown }).message : '';
  const named = typeof message === 'string' ? /after (\d+) seconds?/i.exec(message)?.[1] : undefined;
  return named ? Math.max(1, Number(named)) : 60;
}

/** The last two digits of a factor's number, the only part of it the sign-in step shows. */
export function phoneEnding(phone: string | undefined): string {
  return (phone ?? '').replace(/\D/g, '').slice(-2);
}
