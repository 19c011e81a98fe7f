// Endpoints of features we do not offer, answering exactly as a GoTrue with them switched off (its
// middleware refuses before reading anything), never a bare 404 `not_found`: SAML single sign-on
// and manual identity linking. Their /token grants (web3, id_token) are in grants.ts.
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { AuthError } from '../../errors.ts';

export function switchedOffEndpoints(_deps: Deps): Endpoint[] {
  const samlOff = () => {
    throw new AuthError('saml_provider_disabled');
  };
  const linkingOff = () => {
    throw new AuthError('manual_linking_disabled');
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
    defineEndpoint({
      method: 'get',
      path: '/user/identities/authorize',
      access: 'user',
      summary: 'linkIdentity: manual linking is not offered (404 manual_linking_disabled, as GoTrue)',
      responses: { 404: 'manual_linking_disabled' },
      handler: linkingOff,
    }),
    defineEndpoint({
      method: 'delete',
      path: '/user/identities/{identityId}',
      access: 'user',
      summary: 'unlinkIdentity: manual linking is not offered (404 manual_linking_disabled, as GoTrue)',
      params: z.object({ identityId: z.string() }),
      responses: { 404: 'manual_linking_disabled' },
      handler: linkingOff,
    }),
  ];
}
