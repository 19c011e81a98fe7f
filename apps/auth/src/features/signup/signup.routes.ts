import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { sessionSchema, userSchema } from '../../core/http/response-schemas.ts';
import {
  emailField,
  metadataField,
  parseMetadata,
  passwordField,
  phoneField,
} from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { withResponseFloor } from '../../core/response-floor.ts';
import { AuthError } from '../../errors.ts';
import { signInAnonymously } from '../anonymous/index.ts';
import { signUpWithPhone } from './phone-signup.ts';
import { signUp } from './signup.ts';

export const signupBody = z.object({
  email: emailField.optional(),
  password: passwordField.optional(),
  phone: phoneField().optional(),
  data: metadataField,
  channel: z.string().max(20).optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function signupEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/signup',
      access: 'apikey',
      summary:
        'Create an account (email + password: a confirmation email unless MAILER_AUTOCONFIRM; phone + password with EXTERNAL_PHONE_ENABLED: an SMS code unless SMS_AUTOCONFIRM), or with neither email nor phone an anonymous user (EXTERNAL_ANONYMOUS_USERS_ENABLED)',
      body: signupBody,
      query: z.object({ redirect_to: z.string().optional() }),
      responses: {
        200: {
          description: 'User (confirmation on) or session (autoconfirm)',
          schema: z.union([userSchema, sessionSchema]),
        },
        422: 'weak_password / user_already_exists',
        429: 'rate limited',
      },
      handler: async (c, { body, query }) => {
        // Neither address (GoTrue: both empty): signInAnonymously. Its own switch and rate limit, no
        // response floor (no address to keep secret).
        if (!body.email && !body.phone)
          return c.json(await signInAnonymously(deps, parseMetadata(body.data) ?? {}, c.get('meta')));
        if (body.email && body.phone)
          throw new AuthError(
            'validation_failed',
            'Only an email address or phone number should be provided on signup.',
          );
        if (body.phone && !body.email) {
          const phone = body.phone;
          const result = await withResponseFloor(deps, () =>
            signUpWithPhone(
              deps,
              {
                phone,
                password: body.password,
                data: parseMetadata(body.data) ?? {},
                channel: body.channel,
                hasPkce: Boolean(body.code_challenge),
              },
              c.get('meta'),
            ),
          );
          return c.json(result);
        }
        const redirectTo = redirectFor(deps, c, query('redirect_to'));
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
      },
    }),
  ];
}
