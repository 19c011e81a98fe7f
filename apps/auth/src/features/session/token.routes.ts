import type { Context } from 'hono';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { type AppEnv, parseBody } from '../../core/http/context.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { type Session, sessionSchema } from '../../core/http/response-schemas.ts';
import { emailField, passwordField, phoneField } from '../../core/http/schemas.ts';
import { countSignIn } from '../../core/metrics.ts';
import { pkceGrant } from '../../core/pkce.ts';
import { AuthError } from '../../errors.ts';
import { idTokenGrant } from '../social/index.ts';
import { web3Grant } from '../switched-off/index.ts';
import { passwordGrant } from './password-grant.ts';
import { refreshGrant } from './refresh.ts';

export const passwordGrantBody = z.object({
  email: emailField.optional(),
  phone: phoneField().optional(),
  password: passwordField.optional(),
});
export const refreshGrantBody = z.object({ refresh_token: z.string().max(1000).optional() });
export const pkceGrantBody = z.object({
  auth_code: z.string().max(200).optional(),
  code_verifier: z.string().max(200).optional(),
});

export const idTokenGrantBody = z.object({
  id_token: z.string().max(20_000).optional(),
  provider: z.string().max(200).optional(),
  client_id: z.string().max(500).optional(),
  issuer: z.string().max(2048).optional(),
  access_token: z.string().max(20_000).optional(),
  nonce: z.string().max(1000).optional(),
  link_identity: z.boolean().optional(),
});
// GoTrue reads the web3 body only after its switch, which is off here.
export const web3GrantBody = z.object({}).passthrough();

export type GrantHandler = (deps: Deps, c: Context<AppEnv>) => Promise<Session>;

/**
 * grant_type → its body schema and handler (which validates the body with that schema). A new grant
 * is one entry here: the route, its documented body union and its summary follow.
 */
const grants = {
  password: {
    body: passwordGrantBody,
    handler: (deps, c) => passwordGrant(deps, parseBody(c, passwordGrantBody), c.get('meta')),
  },
  refresh_token: {
    body: refreshGrantBody,
    handler: (deps, c) => refreshGrant(deps, parseBody(c, refreshGrantBody).refresh_token, c.get('meta')),
  },
  pkce: {
    body: pkceGrantBody,
    handler: (deps, c) => pkceGrant(deps, parseBody(c, pkceGrantBody), c.get('meta')),
  },
  // signInWithIdToken (features/social); a provider that is off answers as GoTrue's does.
  id_token: {
    body: idTokenGrantBody,
    handler: (deps, c) =>
      idTokenGrant(deps, parseBody(c, idTokenGrantBody), c.req.header('authorization'), c.get('meta')),
  },
  // Not offered: GoTrue's answer with every web3 chain off (features/switched-off).
  web3: { body: web3GrantBody, handler: async () => web3Grant() },
} satisfies Record<string, { body: z.ZodObject; handler: GrantHandler }>;

export const grantHandlers: Record<string, GrantHandler> = Object.fromEntries(
  Object.entries(grants).map(([type, grant]) => [type, grant.handler]),
);

const grantTypes = Object.keys(grants) as [keyof typeof grants, ...(keyof typeof grants)[]];
const grantSummary = Object.entries(grants)
  .map(([type, grant]) => `${type} (${Object.keys(grant.body.shape).join(', ')})`)
  .join(', ');

export function tokenEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'post',
      path: '/token',
      access: 'apikey',
      summary: `Issue a session by grant_type: ${grantSummary}`,
      query: z.object({ grant_type: z.enum(grantTypes) }),
      body: z.union(Object.values(grants).map((grant) => grant.body)),
      // The grant type picks the body's schema; an unknown grant is answered before the body is read.
      bodyValidatedBy: 'handler',
      responses: {
        200: { description: 'Session', schema: sessionSchema },
        400: 'invalid_credentials, email_not_confirmed, refresh_token_*, flow_state_* / bad_code_verifier',
        429: 'rate limited',
      },
      handler: async (c, { query }) => {
        const grantType = query('grant_type') ?? '';
        const handler = Object.hasOwn(grantHandlers, grantType) ? grantHandlers[grantType] : undefined;
        if (!handler) throw new AuthError('unsupported_grant_type', 'unsupported_grant_type');
        let session: Awaited<ReturnType<GrantHandler>>;
        try {
          session = await handler(deps, c);
        } catch (err) {
          countSignIn(grantType, 'failure');
          throw err;
        }
        countSignIn(grantType, 'success');
        c.header('Cache-Control', 'no-store');
        return c.json(session);
      },
    }),
  ];
}
