/**
 * Passkeys in the browser. The ceremonies themselves run in the official auth client
 * (`signInWithPasskey`, `registerPasskey`), which is its own chunk loaded at the first interaction:
 * no page pays for the WebAuthn code before a visitor asks for it.
 */

/** Whether this browser can run a WebAuthn ceremony at all (checked after hydration only). */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

/**
 * The visitor closed the browser's passkey dialog, or it timed out: auth-js reports the
 * browser's NotAllowedError / AbortError as the cause of its WebAuthnError. Not an error to shout
 * about, just a cancelled attempt.
 */
export function isCancelledCeremony(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  if ('code' in error && error.code === 'ERROR_CEREMONY_ABORTED') return true;
  const cause = 'cause' in error ? (error.cause as { name?: unknown } | undefined) : undefined;
  return cause?.name === 'NotAllowedError' || cause?.name === 'AbortError';
}

/** A service refusal (an AuthApiError with a status) rather than the browser's ceremony failing. */
export function isServiceError(error: unknown): boolean {
  return !!error && typeof error === 'object' && 'status' in error && typeof error.status === 'number';
}
