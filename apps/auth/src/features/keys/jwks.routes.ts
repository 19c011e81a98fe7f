import type { Deps } from '../../core/deps.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { issuerFor } from '../../core/issue-session.ts';

/** Public keys for local JWT verification (supabase-js getClaims caches them for 10 minutes). */
export function jwksEndpoints(deps: Deps): Endpoint[] {
  return [
    defineEndpoint({
      method: 'get',
      path: '/.well-known/jwks.json',
      access: 'public',
      summary: 'JSON Web Key Set (the public signing keys; HS256 secrets are never published)',
      handler: (c) => {
        c.header('Cache-Control', 'public, max-age=600');
        return c.json(deps.keys.jwks());
      },
    }),
    defineEndpoint({
      method: 'get',
      path: '/.well-known/openid-configuration',
      access: 'public',
      summary: 'OpenID configuration: the issuer and where its signing keys are',
      handler: (c) => {
        c.header('Cache-Control', 'public, max-age=600');
        const issuer = issuerFor(deps);
        return c.json({
          issuer,
          jwks_uri: `${issuer}/.well-known/jwks.json`,
          id_token_signing_alg_values_supported: deps.keys.publishedAlgs(),
        });
      },
    }),
  ];
}
