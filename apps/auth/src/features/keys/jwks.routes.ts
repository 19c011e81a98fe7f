import { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { documentRoute } from '../../core/http/openapi.ts';
import { issuerFor } from '../../core/issue-session.ts';

/** Public keys for local JWT verification (supabase-js getClaims caches them for 10 minutes). */
export function jwksRoutes(deps: Deps) {
  const r = new OpenAPIHono<AppEnv>();
  documentRoute(r, {
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'JSON Web Key Set (ES256 public keys)',
  });
  r.get('/.well-known/jwks.json', (c) => {
    c.header('Cache-Control', 'public, max-age=600');
    return c.json(deps.keys.jwks());
  });
  r.get('/.well-known/openid-configuration', (c) => {
    c.header('Cache-Control', 'public, max-age=600');
    const issuer = issuerFor(deps);
    return c.json({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });
  return r;
}
