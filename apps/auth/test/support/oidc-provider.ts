/**
 * A real OpenID Connect provider on loopback (the `oidc-provider` package), standing in for Google
 * and for a generic issuer in the social sign-in tests (service and e2e).
 *
 *   const idp = await startIdentityProvider();          // listening; idp.issuer known
 *   const t = await startTestServer({ ...idp.env('GOOGLE'), ... });
 *   idp.allowRedirect(`${t.url}/auth/v1/callback`);     // clients are made on first use
 *   idp.accounts.set('alice', { email: 'a@x.test', email_verified: true, name: 'Alice' });
 *
 * Sign-in needs no form: the account is the `login_hint` the client passes on
 * (`queryParams: { login_hint: 'alice' }`); `login_hint=refuse` answers access_denied, as a
 * visitor pressing "Cancel" would. Consent is granted by default (loadExistingGrant), and given
 * when asked for: `scopes: 'offline_access'` with `prompt: 'consent'` gets a refresh token too, as
 * Google's `access_type=offline&prompt=consent` does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export type IdpAccount = { email?: string; email_verified?: boolean; name?: string; picture?: string };

export type IdentityProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, IdpAccount>;
  /** The account a sign-in without `login_hint` signs in as (a browser pressing the site's button). */
  nextAccount: string | undefined;
  /** The service's settings for this provider under GoTrue's names (`EXTERNAL_<NAME>_…`). */
  env(name: string): Record<string, string>;
  allowRedirect(uri: string): void;
  /** An ID token signed with the provider's own key (for signInWithIdToken and forged ones). */
  signIdToken(claims: JWTPayload, opts?: { expiresIn?: string | number }): Promise<string>;
  /** The provider's userinfo answer for one of its access tokens (status and body). */
  userInfo(accessToken: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The provider's token endpoint, refresh_token grant, as the client (status and body). */
  refresh(refreshToken: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
};

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const redirectUris = new Set<string>();
  const accounts = new Map<string, IdpAccount>();
  const clientId = 'namaa-test-client';
  const clientSecret = 'namaa-test-secret-0123456789abcdef';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (!handler) {
      res.statusCode = 503;
      res.end('no client registered yet');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const makeProvider = () => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [...redirectUris],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [jwk] },
      cookies: { keys: ['namaa-test-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'picture'] },
      // The claims in the ID token itself, as Google does.
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx: KoaContextWithOIDC, id: string) {
        const account = accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: async () => ({ sub: id, ...account }) };
      },
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        // The grant the consent interaction just made (prompt=consent, below).
        const consented = ctx.oidc.result?.consent?.grantId;
        if (consented) return ctx.oidc.provider.Grant.find(consented);
        const accountId = ctx.oidc.session?.accountId;
        const client = ctx.oidc.client;
        if (!accountId || !client) return undefined;
        const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    const callback = provider.callback();
    return (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/interaction/')) {
        void (async () => {
          try {
            const details = await provider.interactionDetails(req, res);
            if (details.prompt.name === 'consent') {
              // The client asked for consent (prompt=consent): every scope it asked for is granted.
              const grant = new provider.Grant({
                accountId: String(details.session?.accountId),
                clientId: String(details.params.client_id),
              });
              grant.addOIDCScope(String(details.params.scope ?? ''));
              const grantId = await grant.save();
              return await provider.interactionFinished(
                req,
                res,
                { consent: { grantId } },
                { mergeWithLastSubmission: true },
              );
            }
            const hint = String(details.params.login_hint ?? idp.nextAccount ?? '');
            if (hint === 'refuse')
              return await provider.interactionFinished(req, res, {
                error: 'access_denied',
                error_description: 'The visitor declined to sign in',
              });
            await provider.interactionFinished(req, res, { login: { accountId: hint } });
          } catch (err) {
            res.statusCode = 500;
            res.end(String(err));
          }
        })();
        return;
      }
      callback(req, res);
    };
  };

  const idp: IdentityProvider = {
    nextAccount: undefined,
    issuer,
    clientId,
    clientSecret,
    accounts,
    env: (name) => ({
      [`EXTERNAL_${name}_ENABLED`]: 'true',
      [`EXTERNAL_${name}_CLIENT_ID`]: clientId,
      [`EXTERNAL_${name}_SECRET`]: clientSecret,
      [`EXTERNAL_${name}_URL`]: issuer,
    }),
    allowRedirect(uri) {
      redirectUris.add(uri);
      handler = makeProvider();
    },
    async signIdToken(claims, opts = {}) {
      return new SignJWT({ aud: clientId, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime(opts.expiresIn ?? '10m')
        .sign(privateKey);
    },
    async userInfo(accessToken) {
      const res = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async refresh(refreshToken) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return idp;
}

/**
 * Follows a sign-in through the browser's redirects (a minimal cookie jar per origin, as the
 * provider keeps its interaction in cookies) until the service's callback has answered; returns
 * where the callback sends the visitor (the site, with `?code=` or a fragment).
 */
export async function followSignIn(startUrl: string, serviceUrl: string): Promise<URL> {
  const callback = await followToCallback(startUrl, serviceUrl);
  const res = await fetch(callback, { redirect: 'manual' });
  await res.arrayBuffer();
  const location = res.headers.get('location');
  if (!location) throw new Error(`the callback answered ${res.status} without a redirect`);
  return new URL(location, callback);
}

/** As followSignIn, but stops before the service's callback: returns the provider's redirect to it. */
export async function followToCallback(startUrl: string, serviceUrl: string): Promise<string> {
  const jar = new Map<string, Map<string, string>>();
  let url = startUrl;
  for (let hop = 0; hop < 20; hop++) {
    const origin = new URL(url).origin;
    const cookies = jar.get(origin) ?? new Map<string, string>();
    jar.set(origin, cookies);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    await res.arrayBuffer();
    const location = res.headers.get('location');
    if (!location) throw new Error(`${url} answered ${res.status} without a redirect`);
    const next = new URL(location, url);
    if (next.pathname === '/auth/v1/callback' && next.href.startsWith(serviceUrl)) return next.href;
    url = next.href;
  }
  throw new Error('too many redirects');
}
