import { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, parseBody, queryParam } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { emailField } from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { withResponseFloor } from '../../core/response-floor.ts';
import { resend } from './recover.ts';

export const resendBody = z.object({
  type: z.string().max(50),
  email: emailField.optional(),
  phone: z.string().max(100).optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function resendRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, {
    method: 'post',
    path: '/resend',
    summary: 'Re-send the signup or email-change confirmation; answers {} whatever the account state',
    body: resendBody,
    query: z.object({ redirect_to: z.string().optional() }),
  });
  r.post('/resend', async (c) => {
    const body = parseBody(c, resendBody);
    await withResponseFloor(deps, () =>
      resend(
        deps,
        body.type,
        body.email,
        redirectFor(deps, c, queryParam(c, 'redirect_to')),
        c.get('meta'),
        parsePkceParams(body),
      ),
    );
    return c.json({});
  });
  return r;
}
