import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { sessionSchema } from '../../core/http/response-schemas.ts';
import { findUserById } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import {
  assertPasskeysEnabled,
  deletePasskey,
  finishAuthentication,
  finishRegistration,
  listUserPasskeys,
  renameUserPasskey,
  startAuthentication,
  startRegistration,
} from './passkeys.ts';

/** A credential response (RegistrationResponseJSON / AuthenticationResponseJSON) is small; bound it. */
const MAX_CREDENTIAL_JSON = 64 * 1024;

export const ceremonyVerifyBody = z.object({
  challenge_id: z.string().max(100).optional(),
  credential: z.record(z.string(), z.unknown()).nullish(),
});
export const passkeyRenameBody = z.object({ friendly_name: z.string().max(1000).optional() });

const passkeyItemSchema = z.object({
  id: z.string(),
  friendly_name: z.string().optional(),
  created_at: z.string(),
  last_used_at: z.string().optional(),
});
const ceremonySchema = z.object({
  challenge_id: z.string(),
  options: z.record(z.string(), z.unknown()),
  expires_at: z.number(),
});
const passkeyParams = z.object({ passkeyId: z.string().describe('uuid') });
const adminPasskeyParams = z.object({
  userId: z.string().describe('uuid'),
  passkeyId: z.string().describe('uuid'),
});

/** GoTrue's checks of a ceremony's second step, before anything is looked up. */
function ceremonyInput(body: z.infer<typeof ceremonyVerifyBody>) {
  if (!body.challenge_id) throw new AuthError('validation_failed', 'challenge_id is required');
  if (!body.credential) throw new AuthError('validation_failed', 'credential is required');
  if (JSON.stringify(body.credential).length > MAX_CREDENTIAL_JSON)
    throw new AuthError('validation_failed', 'credential is too large');
  return { challengeId: body.challenge_id, credential: body.credential };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function passkeyEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/passkeys/registration/options',
      access: 'user',
      summary: 'Start registering a passkey for the signed-in user: WebAuthn creation options (resident key)',
      responses: {
        200: { description: '{challenge_id, options, expires_at}', schema: ceremonySchema },
        403: 'anonymous user / insufficient_aal (MFA on, aal1 session)',
        404: 'passkey_disabled',
        422: 'too_many_passkeys',
      },
      handler: async (c) => {
        const { user, session } = c.get('auth');
        return c.json(await startRegistration(deps, user, session));
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/passkeys/registration/verify',
      access: 'user',
      summary: 'Finish registering a passkey: verifies the attestation, stores the credential',
      body: ceremonyVerifyBody,
      responses: {
        200: { description: 'The new passkey {id, friendly_name?, created_at}', schema: passkeyItemSchema },
        400: 'validation_failed / webauthn_challenge_not_found / webauthn_challenge_expired / webauthn_verification_failed',
        404: 'passkey_disabled',
        422: 'webauthn_credential_exists / too_many_passkeys',
      },
      handler: async (c, { body }) => {
        const { user, session } = c.get('auth');
        assertPasskeysEnabled(deps);
        return c.json(await finishRegistration(deps, user, session, ceremonyInput(body), c.get('meta')));
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/passkeys/authentication/options',
      access: 'apikey',
      summary: 'Start a passkey sign-in: WebAuthn request options for any discoverable credential',
      responses: {
        200: { description: '{challenge_id, options, expires_at}', schema: ceremonySchema },
        404: 'passkey_disabled',
        429: 'over_request_rate_limit',
      },
      handler: async (c) => c.json(await startAuthentication(deps, c.get('meta'))),
    }),
    defineEndpoint({
      method: 'post',
      path: '/passkeys/authentication/verify',
      access: 'apikey',
      summary: 'Finish a passkey sign-in: verifies the assertion and returns a session (AMR passkey)',
      body: ceremonyVerifyBody,
      responses: {
        200: { description: 'Session', schema: sessionSchema },
        400: 'validation_failed / webauthn_challenge_not_found / webauthn_challenge_expired / webauthn_verification_failed',
        403: 'email_not_confirmed / user_banned',
        404: 'passkey_disabled',
        429: 'over_request_rate_limit',
      },
      handler: async (c, { body }) => {
        assertPasskeysEnabled(deps);
        const session = await finishAuthentication(deps, ceremonyInput(body), c.get('meta'));
        c.header('Cache-Control', 'no-store');
        return c.json(session);
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/passkeys',
      access: 'user',
      summary: "The signed-in user's passkeys (a bare array)",
      responses: {
        200: { description: 'Passkeys', schema: z.array(passkeyItemSchema) },
        404: 'passkey_disabled',
      },
      handler: async (c) => {
        assertPasskeysEnabled(deps);
        c.header('Cache-Control', 'no-store');
        return c.json(await listUserPasskeys(deps, c.get('auth').user.id));
      },
    }),
    defineEndpoint({
      method: 'patch',
      path: '/passkeys/{passkeyId}',
      access: 'user',
      summary: "Rename one of the signed-in user's passkeys (friendly_name, 1–120 characters)",
      params: passkeyParams,
      body: passkeyRenameBody,
      responses: {
        200: { description: 'The passkey', schema: passkeyItemSchema },
        400: 'validation_failed',
        404: 'Passkey not found / passkey_disabled',
      },
      handler: async (c, { body, param }) =>
        c.json(
          await renameUserPasskey(
            deps,
            c.get('auth').user,
            param('passkeyId') ?? '',
            body.friendly_name,
            c.get('meta'),
          ),
        ),
    }),
    defineEndpoint({
      method: 'delete',
      path: '/passkeys/{passkeyId}',
      access: 'user',
      summary: "Delete one of the signed-in user's passkeys (with MFA on, from an aal2 session)",
      params: passkeyParams,
      responses: { 204: 'Deleted', 403: 'insufficient_aal', 404: 'Passkey not found / passkey_disabled' },
      handler: async (c, { param }) => {
        const { user, session } = c.get('auth');
        await deletePasskey(deps, user.id, param('passkeyId') ?? '', c.get('meta'), { user, session });
        return c.body(null, 204);
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/admin/users/{userId}/passkeys',
      access: 'service',
      summary: "A user's passkeys (a bare array)",
      params: z.object({ userId: z.string().describe('uuid') }),
      responses: {
        200: { description: 'Passkeys', schema: z.array(passkeyItemSchema) },
        404: 'user_not_found',
      },
      handler: async (c, { param }) => {
        const userId = await existingUser(param('userId') ?? '');
        return c.json(await listUserPasskeys(deps, userId));
      },
    }),
    defineEndpoint({
      method: 'delete',
      path: '/admin/users/{userId}/passkeys/{passkeyId}',
      access: 'service',
      summary: "Delete one of a user's passkeys",
      params: adminPasskeyParams,
      responses: { 204: 'Deleted', 404: 'user_not_found / Passkey not found' },
      handler: async (c, { param }) => {
        const userId = await existingUser(param('userId') ?? '');
        await deletePasskey(deps, userId, param('passkeyId') ?? '', c.get('meta'), { admin: c.get('admin') });
        return c.body(null, 204);
      },
    }),
  ];

  /** The admin API's path user: GoTrue's 404 user_not_found for a malformed or unknown id. */
  async function existingUser(raw: string): Promise<string> {
    const user = UUID.test(raw) ? await findUserById(deps.db, raw.toLowerCase()) : undefined;
    if (!user) throw new AuthError('user_not_found', 'User not found', { status: 404 });
    return user.id;
  }
}
