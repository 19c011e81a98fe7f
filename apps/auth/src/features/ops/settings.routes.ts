import { SOCIAL_PROVIDERS } from '../../config.ts';
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
            // Every provider, true when enabled (GoTrue lists each of its providers this way).
            ...Object.fromEntries(
              SOCIAL_PROVIDERS.map((name) => [name, deps.config.social.providers[name].enabled]),
            ),
          },
          // Not GoTrue's: the generic OpenID Connect provider's name, for the site's button.
          ...(deps.config.social.providers.oidc.enabled
            ? { oidc_provider_name: deps.config.social.oidcName }
            : {}),
          // Not GoTrue's (its settings say nothing of CAPTCHA; its front ends carry their site key
          // themselves): present only when CAPTCHA is on, so the site shows its widget then and
          // never loads the provider's script otherwise. The site key is public by design.
          ...(deps.config.captcha
            ? {
                captcha: {
                  provider: deps.config.captcha.provider,
                  site_key: deps.config.captcha.siteKey ?? '',
                },
              }
            : {}),
          disable_signup: deps.config.DISABLE_SIGNUP,
          mailer_autoconfirm: deps.config.MAILER_AUTOCONFIRM,
          // Not GoTrue's: whether an email change also asks the current address (the account page
          // says which inboxes to check). Its name is the setting's, as Supabase's config API spells it.
          mailer_secure_email_change_enabled: deps.config.MAILER_SECURE_EMAIL_CHANGE_ENABLED,
          phone_autoconfirm: deps.config.phone.autoconfirm,
          // GoTrue names the configured provider; '' when codes cannot be sent.
          sms_provider: deps.config.mfa.smsProvider === 'none' ? '' : deps.config.mfa.smsProvider,
          saml_enabled: false,
          // GoTrue's: whether signInWithPasskey and passkey registration work (the site shows its
          // passkey buttons only then).
          passkeys_enabled: deps.config.passkey.enabled,
          password_min_length: deps.config.PASSWORD_MIN_LENGTH,
        }),
    }),
  ];
}
