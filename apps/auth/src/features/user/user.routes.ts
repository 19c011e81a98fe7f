import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, parseBody, queryParam } from '../../core/http/context.ts';
import { authRelations, requireUser } from '../../core/http/middleware.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { emailField, metadataField, parseMetadata, passwordField } from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { userJson } from '../../core/user-json.ts';
import { loadUserRelations } from '../../db/users.repo.ts';
import { updateCurrentUser } from './user-update.ts';

export const userUpdateBody = z.object({
  email: emailField.optional(),
  password: passwordField.optional(),
  data: metadataField,
  nonce: z.string().max(100).optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function userRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  r.use('/user', requireUser(deps));
  documentRoute(r, {
    method: 'get',
    path: '/user',
    summary: 'The signed-in user',
    auth: true,
    responses: { 200: 'User', 401: 'no_authorization', 403: 'bad_jwt / session_not_found' },
  });
  r.get('/user', async (c) => {
    const auth = c.get('auth');
    const { user } = auth;
    const rel = authRelations(auth) ?? (await loadUserRelations(deps.db, user.id));
    c.header('Cache-Control', 'no-store');
    return c.json(userJson(user, rel.identities, rel.factors));
  });
  documentRoute(r, {
    method: 'put',
    path: '/user',
    summary:
      'Update metadata, password (ends other sessions; from a session over 24 h old with the nonce of GET /reauthenticate) or email (confirmed by links to the current and the new address)',
    auth: true,
    body: userUpdateBody,
    query: z.object({ redirect_to: z.string().optional() }),
    responses: {
      200: 'User',
      400: 'reauthentication_needed',
      422: 'weak_password / same_password / email_exists / reauthentication_not_valid',
    },
  });
  r.put('/user', async (c) => {
    const body = parseBody(c, userUpdateBody);
    const { user, session } = c.get('auth');
    const result = await updateCurrentUser(
      deps,
      user,
      session,
      {
        email: body.email,
        password: body.password,
        nonce: body.nonce,
        data: parseMetadata(body.data),
        pkce: parsePkceParams(body),
      },
      redirectFor(deps, c, queryParam(c, 'redirect_to')),
      c.get('meta'),
    );
    return c.json(result);
  });
  return r;
}
