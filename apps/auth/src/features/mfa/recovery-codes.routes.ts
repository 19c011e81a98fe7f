import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { sessionSchema } from '../../core/http/response-schemas.ts';
import {
  deleteRecoveryCodes,
  generateRecoveryCodes,
  recoveryCodesStatus,
  regenerateRecoveryCodes,
  verifyRecoveryCode,
} from './recovery-codes.ts';

const generateBody = z.object({ friendly_name: z.string().max(255).nullish() });
// Generous for dashes and spaces around the 16 symbols; anything longer cannot be a code.
const verifyBody = z.object({ code: z.string().min(1).max(64) });

const codesSchema = z
  .strictObject({
    id: z.string(),
    type: z.literal('recovery_code'),
    friendly_name: z.string(),
    total: z.number().int(),
    codes: z.array(z.string()),
  })
  .meta({ id: 'RecoveryCodes' });

const statusSchema = z
  .strictObject({ id: z.string(), total: z.number().int(), remaining: z.number().int() })
  .meta({ id: 'RecoveryCodesStatus' });

/**
 * Routed through `/factors/{factorId}`'s pattern (see `routeAs`) and declared before factorEndpoints
 * (app.ts), so `recovery-codes` is never taken for a factor id and the RegExpRouter keeps the app.
 */
const asFactor = (path: string) => ({ path, param: 'factorId', value: 'recovery-codes' });

export function recoveryCodeEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/factors/recovery-codes',
      routeAs: asFactor('/factors/{factorId}'),
      access: 'user',
      summary:
        'Recovery codes: the factor id, how many codes were issued and how many are left (never a code)',
      responses: {
        200: { description: 'Status', schema: statusSchema },
        404: 'mfa_factor_not_found (no recovery codes)',
      },
      handler: async (c) => {
        const { user } = c.get('auth');
        return c.json(await recoveryCodesStatus(deps, user));
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/factors/recovery-codes',
      routeAs: asFactor('/factors/{factorId}'),
      access: 'user',
      summary: 'Generate the recovery codes (aal2); the codes are answered this once only',
      body: generateBody,
      responses: {
        200: { description: 'The codes', schema: codesSchema },
        403: 'insufficient_aal',
        422: 'mfa_recovery_codes_enroll_disabled / mfa_verified_factor_exists / mfa_recovery_codes_sole_factor',
      },
      handler: async (c, { body }) => {
        const { user, session } = c.get('auth');
        const result = await generateRecoveryCodes(
          deps,
          user,
          session,
          { friendlyName: body.friendly_name ?? undefined },
          c.get('meta'),
        );
        c.header('Cache-Control', 'no-store');
        return c.json(result);
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/factors/recovery-codes/regenerate',
      routeAs: asFactor('/factors/{factorId}/regenerate'),
      access: 'user',
      summary: 'Replace the recovery codes (aal2): every code of the old set stops working',
      responses: {
        200: { description: 'The new codes', schema: codesSchema },
        403: 'insufficient_aal',
        404: 'mfa_factor_not_found',
        422: 'mfa_recovery_codes_enroll_disabled',
      },
      handler: async (c) => {
        const { user, session } = c.get('auth');
        const result = await regenerateRecoveryCodes(deps, user, session, c.get('meta'));
        c.header('Cache-Control', 'no-store');
        return c.json(result);
      },
    }),
    defineEndpoint({
      method: 'post',
      path: '/factors/recovery-codes/verify',
      routeAs: asFactor('/factors/{factorId}/verify'),
      access: 'user',
      summary: "Spend a recovery code at the sign-in's second step; returns the caller's session at aal2",
      body: verifyBody,
      responses: {
        200: { description: 'Session (aal2)', schema: sessionSchema },
        400: 'validation_failed',
        404: 'mfa_factor_not_found (no recovery codes)',
        422: 'mfa_verification_failed / mfa_recovery_codes_verify_disabled',
        429: 'mfa_recovery_codes_locked / over_request_rate_limit',
      },
      handler: async (c, { body }) => {
        const { user, session } = c.get('auth');
        const result = await verifyRecoveryCode(deps, user, session, { code: body.code }, c.get('meta'));
        c.header('Cache-Control', 'no-store');
        return c.json(result);
      },
    }),
    defineEndpoint({
      method: 'delete',
      path: '/factors/recovery-codes',
      routeAs: asFactor('/factors/{factorId}'),
      access: 'user',
      summary: 'Delete the recovery codes (aal2)',
      responses: { 200: '{id}', 403: 'insufficient_aal', 404: 'mfa_factor_not_found' },
      handler: async (c) => {
        const { user, session } = c.get('auth');
        return c.json(await deleteRecoveryCodes(deps, user, session, c.get('meta')));
      },
    }),
  ];
}
