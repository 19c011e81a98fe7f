import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { requestReauthentication } from './reauthenticate.ts';

export function reauthenticateEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/reauthenticate',
      access: 'user',
      summary: 'Mails the signed-in user a 6-digit nonce for a password change (PUT /user {password, nonce})',
      responses: { 200: '{}', 429: 'over_email_send_rate_limit' },
      handler: async (c) => {
        await requestReauthentication(deps, c.get('auth').user, c.get('meta'));
        return c.json({});
      },
    }),
  ];
}
