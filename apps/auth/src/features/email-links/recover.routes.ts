import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
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

export function recoverEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/recover',
      access: 'apikey',
      summary: 'Send a password-recovery link; answers {} whether or not the account exists',
      body: recoverBody,
      query: z.object({ redirect_to: z.string().optional() }),
      handler: async (c, { body, query }) => {
        const email = body.email;
        if (email === undefined) throw new AuthError('validation_failed', 'An email address is required');
        await withResponseFloor(deps, () =>
          requestRecovery(
            deps,
            email,
            redirectFor(deps, c, query('redirect_to')),
            c.get('meta'),
            parsePkceParams(body),
          ),
        );
        return c.json({});
      },
    }),
  ];
}
