import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { emailField, phoneField } from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { withResponseFloor } from '../../core/response-floor.ts';
import { AuthError } from '../../errors.ts';
import { resendPhoneCode } from '../otp/index.ts';
import { resend } from './recover.ts';

export const resendBody = z.object({
  type: z.string().max(50),
  email: emailField.optional(),
  phone: phoneField().optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function resendEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/resend',
      access: 'apikey',
      summary:
        'Re-send the signup or email-change confirmation ({}), or with a phone the sign-up or phone-change SMS code ({message_id}); answers alike whatever the account state',
      body: resendBody,
      query: z.object({ redirect_to: z.string().optional() }),
      handler: async (c, { body, query }) => {
        if (body.type === 'sms' || body.type === 'phone_change') {
          // Phone codes (features/otp), GoTrue's checks in its order.
          if (body.email && body.phone)
            throw new AuthError(
              'validation_failed',
              'Only an email address or phone number should be provided.',
            );
          if (!body.phone)
            throw new AuthError(
              'validation_failed',
              body.type === 'sms' || !body.email
                ? 'Type provided requires a phone number'
                : 'Only a phone number can be used to resend a phone change code',
            );
          const phone = body.phone;
          const type = body.type;
          const sent = await withResponseFloor(deps, () => resendPhoneCode(deps, type, phone, c.get('meta')));
          return c.json(sent.messageId ? { message_id: sent.messageId } : {});
        }
        await withResponseFloor(deps, () =>
          resend(
            deps,
            body.type,
            body.email,
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
