// What the site offers buttons for: exactly what GET /settings reports switched on (issues #15, #17).
import { describe, expect, it } from 'vitest';
import { parseServiceSettings } from '~/features/auth/lib/service-settings.ts';

describe('parseServiceSettings', () => {
  it('lists the enabled providers in the site order, with the generic provider’s name', () => {
    expect(
      parseServiceSettings({
        external: { email: true, github: true, google: true, apple: false, oidc: true },
        oidc_provider_name: 'Acme SSO',
        passkeys_enabled: true,
      }),
    ).toEqual({
      providers: ['google', 'github', 'oidc'],
      oidcName: 'Acme SSO',
      passkeys: true,
      sms: false,
      emailChangeAsksBoth: true,
    });
  });

  it('offers phone factors only when the service names an SMS provider', () => {
    expect(parseServiceSettings({ sms_provider: 'unifonic' }).sms).toBe(true);
    expect(parseServiceSettings({ sms_provider: 'dev' }).sms).toBe(true);
    for (const odd of [{ sms_provider: '' }, { sms_provider: ' ' }, { sms_provider: true }, {}, null])
      expect(parseServiceSettings(odd).sms).toBe(false);
  });

  it('offers nothing when nothing is enabled, or the answer is not what it should be', () => {
    expect(parseServiceSettings({ external: { email: true, phone: true } })).toMatchObject({
      providers: [],
      passkeys: false,
    });
    for (const odd of [
      null,
      'x',
      { external: null },
      { external: { google: 'true' }, passkeys_enabled: 'true' },
      { passkeys_enabled: 1 },
    ])
      expect(parseServiceSettings(odd)).toMatchObject({ providers: [], passkeys: false, sms: false });
  });
});
