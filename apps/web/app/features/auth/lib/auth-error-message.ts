export type AuthErrorMessages = {
  alreadyRegistered: string;
  invalidCredentials: string;
  fallback: string;
};

/**
 * Spec §8: maps an error from the auth service to the text of the destructive "Error" toast.
 * The two known causes are recognised by the service's message, as the spec says; anything else
 * shows the service's own message, and an error without a message shows the generic fallback.
 */
export function authErrorMessage(error: unknown, messages: AuthErrorMessages): string {
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
