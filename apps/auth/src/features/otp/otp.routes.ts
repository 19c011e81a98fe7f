import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { emailField, metadataField, parseMetadata, phoneField } from '../../core/http/schemas.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { withResponseFloor } from '../../core/response-floor.ts';
import { AuthError } from '../../errors.ts';
import { requestEmailOtp } from './otp.ts';
import { assertPhoneEnabled, parseChannel, requestPhoneOtp } from './phone.ts';

export const otpBody = z.object({
  email: emailField.optional(),
  phone: phoneField().optional(),
  // The client always sends it (`shouldCreateUser`, default true); GoTrue's default when absent too.
  create_user: z.boolean().optional(),
  data: metadataField,
  channel: z.string().max(20).optional(),
  code_challenge: z.string().max(1000).nullish(),
  code_challenge_method: z.string().max(20).nullish(),
});

export function otpEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/otp',
      access: 'apikey',
      summary:
        'Passwordless sign-in: mails a link and a 6-digit code (verified at /verify, type magiclink or email), or with EXTERNAL_PHONE_ENABLED texts a code (type sms; `channel: whatsapp` with WHATSAPP_PROVIDER, falling back to SMS); answers alike whether or not the account exists',
      body: otpBody,
      query: z.object({ redirect_to: z.string().optional() }),
      responses: {
        200: 'Always {} for an email; {message_id} for a phone',
        400: 'validation_failed / phone_provider_disabled',
        429: 'rate limited',
      },
      handler: async (c, { body, query }) => {
        // GoTrue's checks, in its order (OtpParams.Validate, then the channel).
        const email = body.email || undefined;
        const phone = body.phone || undefined;
        if (email && phone)
          throw new AuthError(
            'validation_failed',
            'Only an email address or phone number should be provided',
          );
        if (email && body.channel)
          throw new AuthError('validation_failed', 'Channel should only be specified with Phone OTP');
        const pkce = parsePkceParams(body);
        const data = parseMetadata(body.data) ?? {};
        if (phone) {
          assertPhoneEnabled(deps);
          const channel = parseChannel(deps, body.channel || undefined);
          const redirectTo = query('redirect_to') ? redirectFor(deps, c, query('redirect_to')) : undefined;
          const sent = await withResponseFloor(deps, () =>
            requestPhoneOtp(
              deps,
              { phone, createUser: body.create_user ?? true, data, channel, redirectTo },
              c.get('meta'),
            ),
          );
          return c.json(sent.messageId ? { message_id: sent.messageId } : {});
        }
        if (!email) throw new AuthError('validation_failed', 'One of email or phone must be set');
        const redirectTo = redirectFor(deps, c, query('redirect_to'));
        await withResponseFloor(deps, () =>
          requestEmailOtp(
            deps,
            { email, createUser: body.create_user ?? true, data, pkce },
            redirectTo,
            c.get('meta'),
          ),
        );
        return c.json({});
      },
    }),
  ];
}
