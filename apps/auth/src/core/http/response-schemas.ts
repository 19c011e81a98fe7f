// GoTrue's response objects as zod schemas: the OpenAPI document shows them (as components, by
// their `id`), and their inferred types are what userJson() and issueSession() return, so a field
// added to one without the other fails the type check. Responses are not validated at run time:
// the types already hold the code to them, and the hot paths would pay for a parse per answer.
// Strict objects: the document says no other field is sent (test/core/issue-session.test.ts
// parses real answers with them).
import { z } from 'zod';

const timestamp = z.string().describe('ISO 8601 date-time');
const jsonObject = z.record(z.string(), z.unknown());

export const identitySchema = z
  .strictObject({
    identity_id: z.string(),
    id: z.string().describe("The user's id at the provider (for email: the user id)"),
    user_id: z.string(),
    identity_data: jsonObject,
    provider: z.string(),
    last_sign_in_at: timestamp.optional(),
    created_at: timestamp.optional(),
    updated_at: timestamp.optional(),
    email: z.string().optional(),
  })
  .meta({ id: 'Identity' });

/** A factor as listed in the user object (GET /user, sessions). */
export const factorSchema = z
  .strictObject({
    id: z.string(),
    friendly_name: z.string().optional(),
    factor_type: z.enum(['totp', 'phone', 'webauthn', 'recovery_code']),
    status: z.enum(['unverified', 'verified']),
    phone: z.string(),
    last_challenged_at: timestamp.nullable(),
    created_at: timestamp.optional(),
    updated_at: timestamp.optional(),
  })
  .meta({ id: 'Factor' });

/** GoTrue's User: email and phone always strings, unset timestamps omitted, factors only when any. */
export const userSchema = z
  .strictObject({
    id: z.string(),
    aud: z.string(),
    role: z.string(),
    email: z.string(),
    email_confirmed_at: timestamp.optional(),
    phone: z.string(),
    phone_confirmed_at: timestamp.optional(),
    confirmation_sent_at: timestamp.optional(),
    confirmed_at: timestamp.optional(),
    recovery_sent_at: timestamp.optional(),
    new_email: z.string().optional(),
    new_phone: z.string().optional(),
    phone_change_sent_at: timestamp.optional(),
    email_change_sent_at: timestamp.optional(),
    invited_at: timestamp.optional(),
    last_sign_in_at: timestamp.optional(),
    banned_until: timestamp.optional(),
    deleted_at: timestamp.optional(),
    app_metadata: jsonObject,
    user_metadata: jsonObject,
    identities: z.array(identitySchema),
    factors: z.array(factorSchema).optional(),
    created_at: timestamp.optional(),
    updated_at: timestamp.optional(),
    is_anonymous: z.boolean(),
  })
  .meta({ id: 'User' });

export const sessionSchema = z
  .strictObject({
    access_token: z.string().describe('ES256 JWT'),
    token_type: z.literal('bearer'),
    expires_in: z.number().int(),
    expires_at: z.number().int().describe('Unix time (seconds)'),
    refresh_token: z.string(),
    user: userSchema,
    provider_token: z
      .string()
      .optional()
      .describe(
        "PKCE grant after a social sign-in (or linkIdentity) only: the provider's own OAuth access token",
      ),
    provider_refresh_token: z
      .string()
      .optional()
      .describe("As provider_token, and only when the provider issued one: the provider's refresh token"),
    weak_password: z
      .strictObject({ message: z.string(), reasons: z.array(z.string()) })
      .nullable()
      .optional()
      .describe('Password grant only: what the current password policy finds weak in it (null: nothing)'),
  })
  .meta({ id: 'Session' });

/** POST /factors: the new factor, with what the user needs to set it up. */
export const enrolledFactorSchema = z
  .strictObject({
    id: z.string(),
    type: z.enum(['totp', 'phone', 'webauthn']),
    friendly_name: z.string(),
    totp: z
      .strictObject({
        qr_code: z.string().describe('SVG'),
        secret: z.string(),
        uri: z.string().describe('otpauth:// URI'),
      })
      .optional(),
    phone: z.string().optional(),
  })
  .meta({ id: 'EnrolledFactor' });

export type User = z.infer<typeof userSchema>;
export type Identity = z.infer<typeof identitySchema>;
export type Factor = z.infer<typeof factorSchema>;
export type Session = z.infer<typeof sessionSchema>;
export type EnrolledFactor = z.infer<typeof enrolledFactorSchema>;
