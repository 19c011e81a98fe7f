import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { authRelations } from '../../core/http/guards.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { userSchema } from '../../core/http/response-schemas.ts';
import {
  codeField,
  emailField,
  metadataField,
  parseMetadata,
  passwordField,
  phoneField,
} from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { userJson } from '../../core/user-json.ts';
import { loadUserRelations } from '../../db/users.repo.ts';
import { updateCurrentUser } from './user-update.ts';

export const userUpdateBody = z.object({
  email: emailField.optional(),
  phone: phoneField().optional(),
  password: passwordField.optional(),
  data: metadataField,
  nonce: codeField(100).optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function userEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/user',
      access: 'user',
      summary: 'The signed-in user',
      responses: {
        200: { description: 'User', schema: userSchema },
        401: 'no_authorization',
        403: 'bad_jwt / session_not_found',
      },
      handler: async (c) => {
        const auth = c.get('auth');
        const { user } = auth;
        const rel = authRelations(auth) ?? (await loadUserRelations(deps.db, user.id));
        c.header('Cache-Control', 'no-store');
        return c.json(userJson(user, rel.identities, rel.factors));
      },
    }),
    defineEndpoint({
      method: 'put',
      path: '/user',
      access: 'user',
      summary:
        'Update metadata, password (ends other sessions; from a session over 24 h old with the nonce of GET /reauthenticate) email (confirmed by links to the current and the new address) or phone (EXTERNAL_PHONE_ENABLED: confirmed by an SMS code, verifyOtp type phone_change)',
      body: userUpdateBody,
      query: z.object({ redirect_to: z.string().optional() }),
      responses: {
        200: { description: 'User', schema: userSchema },
        400: 'reauthentication_needed',
        422: 'weak_password / same_password / email_exists / phone_exists / reauthentication_not_valid',
      },
      handler: async (c, { body, query }) => {
        const { user, session } = c.get('auth');
        const result = await updateCurrentUser(
          deps,
          user,
          session,
          {
            email: body.email,
            phone: body.phone || undefined,
            password: body.password,
            nonce: body.nonce,
            data: parseMetadata(body.data),
            pkce: parsePkceParams(body),
          },
          redirectFor(deps, c, query('redirect_to')),
          c.get('meta'),
        );
        return c.json(result);
      },
    }),
  ];
}
