import * as z from 'zod/mini';

/** Limits of spec §5 and §9, shared by the schema and the input attributes. */
export const credentialLimits = {
  emailMax: 255,
  passwordMin: 6,
  passwordMax: 100,
} as const;

export type CredentialMessages = { invalidEmail: string; passwordTooShort: string };

/**
 * An email address the form lets through: a local part and a dotted domain whose last label has two
 * or more characters, in any script. Internationalised addresses (`مستخدم@مثال.السعودية`,
 * `用户@例子.广告`) pass, so the service decides whether it accepts them (ours is ASCII-only, as
 * GoTrue, and answers with its own validation message; a service that accepts them just works).
 * The form never refuses what a service could accept.
 */
const emailPattern =
  /^[^\s@"<>()[\]\\,;:]{1,64}@(?:[^\s@".<>()[\]\\,;:]+\.)+[^\s@".<>()[\]\\,;:\d][^\s@".<>()[\]\\,;:]*$/u;

export const emailSchema = (messages: Pick<CredentialMessages, 'invalidEmail'>) =>
  z.string().check(
    z.regex(emailPattern, { error: messages.invalidEmail }),
    z.maxLength(credentialLimits.emailMax, { error: messages.invalidEmail }),
    // A one-character top-level label is no address any service accepts.
    z.refine((v) => (v.split('.').pop() ?? '').length >= 2, { error: messages.invalidEmail }),
  );

export const passwordSchema = (messages: Pick<CredentialMessages, 'passwordTooShort'>) =>
  z
    .string()
    .check(
      z.minLength(credentialLimits.passwordMin, { error: messages.passwordTooShort }),
      z.maxLength(credentialLimits.passwordMax, { error: messages.passwordTooShort }),
    );

/**
 * The sign-in / sign-up form schema (spec §5). Messages come from the locale's catalog. Email is
 * checked before password so the first issue follows the form order. The maximum lengths carry the
 * spec's "no message": they reuse the nearest field message, but the inputs' maxLength attributes
 * make them unreachable from the page.
 */
export function credentialsSchema(messages: CredentialMessages) {
  return z.object({ email: emailSchema(messages), password: passwordSchema(messages) });
}

export type Credentials = { email: string; password: string };
export type CredentialField = keyof Credentials;

export type ValidationResult =
  | { ok: true; data: Credentials }
  | { ok: false; message: string; field: CredentialField };

/** Validates the form values and returns the data, or the first message and its field (spec §5). */
export function validateCredentials(input: unknown, messages: CredentialMessages): ValidationResult {
  const result = credentialsSchema(messages).safeParse(input);
  if (result.success) return { ok: true, data: result.data };
  const issue = result.error.issues[0];
  return {
    ok: false,
    message: issue?.message ?? messages.invalidEmail,
    field: issue?.path[0] === 'password' ? 'password' : 'email',
  };
}

/** One field alone (the recovery form's email, the new password): its message, or undefined. */
export function fieldError(
  field: CredentialField,
  value: unknown,
  messages: CredentialMessages,
): string | undefined {
  const schema = field === 'email' ? emailSchema(messages) : passwordSchema(messages);
  const result = schema.safeParse(value);
  return result.success ? undefined : (result.error.issues[0]?.message ?? messages.invalidEmail);
}
