// Endpoints of features we do not offer, answering exactly as a GoTrue with them switched off (its
// middleware refuses before reading anything), never a bare 404 `not_found`: SAML single sign-on.
// The web3 /token grant, and the id_token grant's answers for providers that are off, are in
// grants.ts (features/social hands those to it).
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { AuthError } from '../../errors.ts';

export function switchedOffEndpoints(_deps: Deps): Endpoint[] {
  const samlOff = () => {
    throw new AuthError('saml_provider_disabled');
  };
  const sso = (method: 'get' | 'post', path: string, summary: string) =>
    defineEndpoint({
      method,
      path,
      access: 'apikey',
      summary: `${summary}: SAML is not offered (404 saml_provider_disabled, as GoTrue with SAML off)`,
      responses: { 404: 'saml_provider_disabled' },
      handler: samlOff,
    });
  return [
    sso('post', '/sso', 'signInWithSSO'),
    sso('get', '/sso/saml/metadata', 'SAML metadata'),
    sso('post', '/sso/saml/acs', 'SAML assertion consumer'),
  ];
}
