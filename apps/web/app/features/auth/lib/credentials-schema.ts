import * as z from 'zod/mini';

/** Limits of spec §5 and §9, shared by the schema and the input attributes. */
export const credentialLimits = {
  emailMax: 255,
  passwordMin: 6,
  passwordMax: 100,
} as const;

export type CredentialMessages = { invalidEmail: string; passwordTooShort: string };

/**
 * The sign-in / sign-up form schema (spec §5). Messages come from the locale's catalog. Email is
 * checked before password so the first issue follows the form order. The maximum lengths carry the
 * spec's "no message": they reuse the nearest field message, but the inputs' maxLength attributes
 * make them unreachable from the page.
 */
export function credentialsSchema(messages: CredentialMessages) {
  return z.object({
    email: z
      .string()
      .check(
        z.email({ error: messages.invalidEmail }),
        z.maxLength(credentialLimits.emailMax, { error: messages.invalidEmail }),
      ),
    password: z
      .string()
      .check(
        z.minLength(credentialLimits.passwordMin, { error: messages.passwordTooShort }),
        z.maxLength(credentialLimits.passwordMax, { error: messages.passwordTooShort }),
      ),
  });
}

export type Credentials = { email: string; password: string };

export type ValidationResult = { ok: true; data: Credentials } | { ok: false; message: string };

/** Validates the form values and returns the data or the first message (spec §5). */
export function validateCredentials(input: unknown, messages: CredentialMessages): ValidationResult {
  const result = credentialsSchema(messages).safeParse(input);
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, message: result.error.issues[0]?.message ?? messages.invalidEmail };
}
