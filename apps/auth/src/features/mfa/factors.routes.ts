import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { enrolledFactorSchema, sessionSchema } from '../../core/http/response-schemas.ts';
import { codeField, phoneField } from '../../core/http/schemas.ts';
import { AuthError } from '../../errors.ts';
import { enrollFactor, unenrollFactor } from './factors.ts';
import { createChallenge, verifyFactor } from './verify-factor.ts';

export const enrollBody = z.object({
  factor_type: z.string().max(20),
  friendly_name: z.string().max(255).nullish(),
  issuer: z.string().max(255).nullish(),
  phone: phoneField(50).nullish(),
});
export const challengeBody = z.object({
  channel: z.string().max(20).nullish(),
  // The client also sends factorId and webauthn {rpId, rpOrigins}: the RP comes from our config.
});
export const verifyBody = z.object({
  challenge_id: z.string().max(100),
  code: codeField(20).nullish(),
  webauthn: z
    .object({
      type: z.enum(['create', 'request']).optional(),
      credential_response: z.record(z.string(), z.unknown()),
    })
    .nullish(),
});

/** JSON bodies the WebAuthn credential response may need are small; bound them all the same. */
const MAX_CREDENTIAL_JSON = 64 * 1024;

const factorParams = z.object({ factorId: z.string().describe('uuid') });

export function factorEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/factors',
      access: 'user',
      summary: 'Enroll an MFA factor: totp (secret, otpauth URI, SVG QR code), phone (E.164) or webauthn',
      body: enrollBody,
      responses: {
        200: { description: 'Factor', schema: enrolledFactorSchema },
        400: 'validation_failed',
        403: 'insufficient_aal (a verified factor exists and the session is aal1)',
        422: 'mfa_factor_name_conflict / too_many_enrolled_mfa_factors',
      },
      handler: async (c, { body }) => {
        const { user, session } = c.get('auth');
        const result = await enrollFactor(
          deps,
          user,
          session,
          {
            factorType: body.factor_type,
            friendlyName: body.friendly_name ?? undefined,
            issuer: body.issuer ?? undefined,
            phone: body.phone ?? undefined,
          },
          c.get('meta'),
        );
        return c.json(result);
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/factors/{factorId}/challenge',
      access: 'user',
      summary: 'Start a challenge (phone: sends a code; webauthn: credential options)',
      params: factorParams,
      body: challengeBody,
      responses: {
        200: 'Challenge {id, type, expires_at}',
        403: 'insufficient_aal (an unverified factor, a verified one exists and the session is aal1)',
        404: 'mfa_factor_not_found',
        429: 'over_request_rate_limit',
      },
      handler: async (c, { body, param }) => {
        const { user, session } = c.get('auth');
        const result = await createChallenge(
          deps,
          user,
          session,
          param('factorId'),
          { channel: body.channel ?? undefined },
          c.get('meta'),
        );
        return c.json(result);
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/factors/{factorId}/verify',
      access: 'user',
      summary: 'Verify a challenge; returns a new aal2 session',
      params: factorParams,
      body: verifyBody,
      responses: {
        200: { description: 'Session (aal2)', schema: sessionSchema },
        403: 'insufficient_aal (an unverified factor, a verified one exists and the session is aal1)',
        422: 'mfa_verification_failed / mfa_challenge_expired / mfa_ip_address_mismatch',
        429: 'over_request_rate_limit (the factor is backing off after repeated failures)',
      },
      handler: async (c, { body, param }) => {
        if (body.webauthn && JSON.stringify(body.webauthn).length > MAX_CREDENTIAL_JSON)
          throw new AuthError('validation_failed', 'webauthn is too large');
        const { user, session } = c.get('auth');
        const result = await verifyFactor(
          deps,
          user,
          session,
          param('factorId'),
          {
            challengeId: body.challenge_id,
            code: body.code ?? undefined,
            webauthn: body.webauthn ?? undefined,
          },
          c.get('meta'),
        );
        c.header('Cache-Control', 'no-store');
        return c.json(result);
      },
    }),
    defineEndpoint({
      method: 'delete',
      path: '/factors/{factorId}',
      access: 'user',
      summary: 'Unenroll a factor (with a verified factor present, needs an aal2 session)',
      params: factorParams,
      responses: { 200: '{id}', 422: 'insufficient_aal' },
      handler: async (c, { param }) => {
        const { user, session } = c.get('auth');
        return c.json(await unenrollFactor(deps, user, session, param('factorId'), c.get('meta')));
      },
    }),
  ];
}
