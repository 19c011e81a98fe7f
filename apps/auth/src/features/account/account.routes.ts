import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { userSchema } from '../../core/http/response-schemas.ts';
import { codeField } from '../../core/http/schemas.ts';
import { deleteAccount, exportAccount, listSessions } from './account.ts';

const sessionSchema = z
  .object({
    id: z.string(),
    aal: z.string(),
    user_agent: z.string().nullable(),
    created_at: z.string(),
    last_active_at: z.string(),
    current: z.boolean(),
  })
  .strict();

const exportSchema = z
  .object({
    format: z.literal('namaa-account-export'),
    version: z.literal(1),
    exported_at: z.string(),
    user: userSchema,
    privacy_notice: z.object({ version: z.string().nullable(), accepted_at: z.string().nullable() }).strict(),
    sessions: z.array(sessionSchema.extend({ ip: z.string().nullable() })),
    passkeys: z.array(
      z.object({
        id: z.string(),
        friendly_name: z.string(),
        created_at: z.string(),
        last_used_at: z.string().nullable(),
      }),
    ),
    audit_events: z.array(
      z.object({
        id: z.string(),
        action: z.string(),
        created_at: z.string(),
        ip_address: z.string().nullable(),
        payload: z.record(z.string(), z.unknown()),
      }),
    ),
  })
  .strict();

export const deleteAccountBody = z.object({
  /** The 6-digit code mailed by GET /reauthenticate. */
  nonce: codeField(100).optional(),
});

export function accountEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/account/sessions',
      access: 'user',
      extension: true,
      summary:
        "The signed-in user's sessions (user agent, sign-in and last activity), most recently active first",
      responses: {
        200: { description: 'Sessions', schema: z.object({ sessions: z.array(sessionSchema) }) },
        401: 'no_authorization',
        403: 'bad_jwt / session_not_found',
      },
      handler: async (c) => {
        const { user, session } = c.get('auth');
        c.header('Cache-Control', 'no-store');
        return c.json({ sessions: await listSessions(deps, user, session) });
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/account/export',
      access: 'user',
      extension: true,
      summary:
        'Everything the service holds about the signed-in account as JSON: profile, identities, factors (without secrets), sessions and audit events',
      responses: {
        200: { description: 'The export (Content-Disposition: attachment)', schema: exportSchema },
        401: 'no_authorization',
        403: 'bad_jwt / session_not_found',
      },
      handler: async (c) => {
        const { user, session } = c.get('auth');
        const data = await exportAccount(deps, user, session.id);
        c.header('Cache-Control', 'no-store');
        c.header('Content-Disposition', 'attachment; filename="namaa-account.json"');
        return c.json(data);
      },
    }),
    defineEndpoint({
      method: 'delete',
      path: '/account',
      access: 'user',
      extension: true,
      summary:
        'Deletes the signed-in account (nonce of GET /reauthenticate; aal2 when a factor is verified): user, identities, factors, sessions and tokens in one transaction, audit kept without personal data, a confirmation mailed (when the account has an email)',
      body: deleteAccountBody,
      responses: {
        204: 'Deleted; every session is over',
        400: 'reauthentication_needed / validation_failed',
        401: 'insufficient_aal',
        422: 'reauthentication_not_valid',
        429: 'over_request_rate_limit',
      },
      handler: async (c, { body }) => {
        const { user, session } = c.get('auth');
        await deleteAccount(deps, user, session, body.nonce, c.get('meta'));
        return c.body(null, 204);
      },
    }),
  ];
}
