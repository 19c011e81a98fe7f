import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, parseBody, queryParam } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { emailField } from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { withResponseFloor } from '../../core/response-floor.ts';
import { AuthError } from '../../errors.ts';
import { requestRecovery } from './recover.ts';

export const recoverBody = z.object({
  email: emailField.optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function recoverRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, {
    method: 'post',
    path: '/recover',
    summary: 'Send a password-recovery link; answers {} whether or not the account exists',
    body: recoverBody,
    query: z.object({ redirect_to: z.string().optional() }),
  });
  r.post('/recover', async (c) => {
    const body = parseBody(c, recoverBody);
    const email = body.email;
    if (email === undefined) throw new AuthError('validation_failed', 'An email address is required');
    await withResponseFloor(deps, () =>
      requestRecovery(
        deps,
        email,
        redirectFor(deps, c, queryParam(c, 'redirect_to')),
        c.get('meta'),
        parsePkceParams(body),
      ),
    );
    return c.json({});
  });
  return r;
}
