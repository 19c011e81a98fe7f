import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';

export function settingsEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/settings',
      access: 'apikey',
      summary: 'Public server settings',
      handler: (c) =>
        c.json({
          external: {
            email: true,
            phone: deps.config.phone.enabled,
            anonymous_users: deps.config.EXTERNAL_ANONYMOUS_USERS_ENABLED,
          },
          disable_signup: deps.config.DISABLE_SIGNUP,
          mailer_autoconfirm: deps.config.MAILER_AUTOCONFIRM,
          phone_autoconfirm: false,
          sms_provider: '',
          saml_enabled: false,
          password_min_length: deps.config.PASSWORD_MIN_LENGTH,
        }),
    }),
  ];
}
