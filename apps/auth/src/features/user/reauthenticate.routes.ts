import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { requestReauthentication } from './reauthenticate.ts';

export function reauthenticateEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/reauthenticate',
      access: 'user',
      summary:
        'Sends the signed-in user a 6-digit nonce for a password change (PUT /user {password, nonce}) or DELETE /account: by mail, or by SMS to an account with a phone and no email',
      responses: {
        200: '{} (by mail), or {message_id} (by SMS)',
        422: 'phone_not_confirmed',
        429: 'over_email_send_rate_limit, over_sms_send_rate_limit',
      },
      handler: async (c) => {
        const { messageId } = await requestReauthentication(deps, c.get('auth').user, c.get('meta'));
        return c.json(messageId ? { message_id: messageId } : {});
      },
    }),
  ];
}
