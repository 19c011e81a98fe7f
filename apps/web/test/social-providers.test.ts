// The providers the site offers buttons for: exactly those GET /settings reports enabled (issue #15).
import { describe, expect, it } from 'vitest';
import { enabledProviders } from '~/features/auth/lib/social-providers.ts';

describe('enabledProviders', () => {
  it('lists the enabled ones in the site order, with the generic provider’s name', () => {
    expect(
      enabledProviders({
        external: { email: true, github: true, google: true, apple: false, oidc: true },
        oidc_provider_name: 'Acme SSO',
      }),
    ).toEqual({ providers: ['google', 'github', 'oidc'], oidcName: 'Acme SSO' });
  });

  it('offers none when none is enabled, or the answer is not what it should be', () => {
    expect(enabledProviders({ external: { email: true, phone: true } }).providers).toEqual([]);
    for (const odd of [null, 'x', { external: null }, { external: { google: 'true' } }])
      expect(enabledProviders(odd).providers).toEqual([]);
  });
});
