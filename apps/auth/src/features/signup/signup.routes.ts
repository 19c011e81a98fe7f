import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, parseBody, queryParam } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { emailField, metadataField, parseMetadata, passwordField } from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { withResponseFloor } from '../../core/response-floor.ts';
import { AuthError } from '../../errors.ts';
import { signUp } from './signup.ts';

export const signupBody = z.object({
  email: emailField.optional(),
  password: passwordField.optional(),
  phone: z.string().max(100).optional(),
  data: metadataField,
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function signupRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, {
    method: 'post',
    path: '/signup',
    summary: 'Create an account (email + password); a confirmation email is sent unless MAILER_AUTOCONFIRM',
    body: signupBody,
    query: z.object({ redirect_to: z.string().optional() }),
    responses: {
      200: 'User (confirmation on) or session (autoconfirm)',
      422: 'weak_password / user_already_exists',
      429: 'rate limited',
    },
  });
  r.post('/signup', async (c) => {
    const body = parseBody(c, signupBody);
    if (body.phone !== undefined && body.email === undefined) throw new AuthError('phone_provider_disabled');
    const redirectTo = redirectFor(deps, c, queryParam(c, 'redirect_to'));
    const result = await withResponseFloor(deps, () =>
      signUp(
        deps,
        {
          email: body.email,
          password: body.password,
          data: parseMetadata(body.data) ?? {},
          pkce: parsePkceParams(body),
        },
        redirectTo,
        c.get('meta'),
      ),
    );
    return c.json(result);
  });
  return r;
}
