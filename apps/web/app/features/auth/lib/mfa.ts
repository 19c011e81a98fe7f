/**
 * A second factor that was simply wrong or too late: the code did not match
 * (`mfa_verification_failed`), or its challenge expired (`mfa_challenge_expired`). Those get the
 * page's own plain message; anything else (a rate limit, the service away) keeps its usual text.
 */
export function isWrongSecondFactor(error: unknown): boolean {
  const code =
    error && typeof error === 'object' && 'code' in error ? (error as { code?: unknown }).code : undefined;
  return code === 'mfa_verification_failed' || code === 'mfa_challenge_expired';
}
