import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';

export function settingsRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, { method: 'get', path: '/settings', summary: 'Public server settings' });
  r.get('/settings', (c) =>
    c.json({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: deps.config.DISABLE_SIGNUP,
      mailer_autoconfirm: deps.config.MAILER_AUTOCONFIRM,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
      password_min_length: deps.config.PASSWORD_MIN_LENGTH,
    }),
  );
  return r;
}
