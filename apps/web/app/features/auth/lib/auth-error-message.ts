export type AuthErrorMessages = {
  alreadyRegistered: string;
  invalidCredentials: string;
  /** GoTrue's weak_password reason `pwned`: a breached (or very common) password, said in words. */
  breachedPassword: string;
  /** GoTrue's `captcha_failed`: no token, or the provider refused it (its words are codes, not prose). */
  captchaFailed: string;
  fallback: string;
};

/** auth-js's AuthWeakPasswordError carries the service's `weak_password.reasons`. */
function weakPasswordReasons(error: unknown): string[] {
  const reasons = error && typeof error === 'object' && 'reasons' in error ? error.reasons : undefined;
  return Array.isArray(reasons) ? reasons.filter((r): r is string => typeof r === 'string') : [];
}

/** The service's GoTrue `error_code`, which auth-js keeps as `code`. */
function errorCode(error: unknown): string | undefined {
  const code = error && typeof error === 'object' && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The HTTP status an auth-js error carries (0 when the request never got an answer), if any.
 */
function errorStatus(error: unknown): number | undefined {
  const status = error && typeof error === 'object' && 'status' in error ? error.status : undefined;
  return typeof status === 'number' ? status : undefined;
}

/** A gateway or the service answered 502–504: auth-js keeps only the status (its message is "{}"). */
export function isServiceAway(error: unknown): boolean {
  const status = errorStatus(error);
  return status !== undefined && status >= 502 && status <= 504;
}

/**
 * Failures that carry no words of the service: the network failed (auth-js's
 * AuthRetryableFetchError, status 0, "Failed to fetch"), or the service was away (502–504).
 */
function isUnreachable(error: unknown): boolean {
  return errorStatus(error) === 0 || isServiceAway(error);
}

/**
 * Spec §8: maps an error from the auth service to the text of the destructive "Error" toast.
 * The two known causes are recognised by the service's message, as the spec says; anything else
 * shows the service's own message, and an error without a message shows the generic fallback.
 */
export function authErrorMessage(error: unknown, messages: AuthErrorMessages): string {
  if (isUnreachable(error)) return messages.fallback;
  if (weakPasswordReasons(error).includes('pwned')) return messages.breachedPassword;
  if (errorCode(error) === 'captcha_failed') return messages.captchaFailed;
  const raw =
    typeof error === 'string'
      ? error
      : error && typeof error === 'object' && 'message' in error && typeof error.message === 'string'
        ? error.message
        : '';
  const message = raw.trim();
  if (message === '') return messages.fallback;
  if (/user already registered/i.test(message)) return messages.alreadyRegistered;
  if (/invalid login credentials/i.test(message)) return messages.invalidCredentials;
  return message;
}
