// Social sign-in's endpoints (GoTrue's wire behaviour): /authorize, /callback (GET, and POST for
// Apple's form_post), and the identities of a signed-in user (linkIdentity / unlinkIdentity).
import type { Context } from 'hono';
import { z } from 'zod';
import type { Deps } from '../../core/deps.ts';
import type { AppEnv } from '../../core/http/context.ts';
import { defineEndpoint, type Endpoint } from '../../core/http/define-endpoint.ts';
import { redirectFor } from '../../core/http/redirect.ts';
import { parsePkceParams } from '../../core/pkce.ts';
import { AuthError } from '../../errors.ts';
import { extraParams, startAuthorization } from './authorize.ts';
import { type CallbackParams, completeAuthorization } from './callback.ts';
import { unlinkIdentity } from './identities.ts';

const authorizeQuery = z.object({
  provider: z.string(),
  redirect_to: z.string().optional(),
  scopes: z.string().optional(),
  code_challenge: z.string().optional(),
  code_challenge_method: z.string().optional(),
  skip_http_redirect: z.string().optional(),
});

const callbackQuery = z.object({
  state: z.string().optional(),
  code: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** A form post is small (code, state, Apple's user JSON): anything larger is not a provider's. */
const MAX_FORM_BYTES = 16 * 1024;

async function readForm(c: Context<AppEnv>): Promise<CallbackParams> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new AuthError('validation_failed', 'Content-Type must be application/x-www-form-urlencoded');
  if (Number(c.req.header('content-length') ?? '0') > MAX_FORM_BYTES)
    throw new AuthError('request_entity_too_large');
  const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
  if (bytes.byteLength > MAX_FORM_BYTES) throw new AuthError('request_entity_too_large');
  const form = new URLSearchParams(Buffer.from(bytes).toString('utf8'));
  const field = (name: string) => {
    const v = form.get(name) ?? undefined;
    return v !== undefined && v.length <= 4096 ? v : undefined;
  };
  return {
    state: field('state'),
    code: field('code'),
    error: field('error'),
    error_description: field('error_description'),
    iss: field('iss'),
    user: field('user'),
  };
}

export function socialEndpoints(deps: Deps): Endpoint[] {
  /** /authorize and its linking twin: where to send the browser (302, or `{url}` when asked). */
  const authorize = async (
    c: Context<AppEnv>,
    query: (name: keyof z.infer<typeof authorizeQuery>) => string | undefined,
    linkUserId?: string,
  ) => {
    const provider = query('provider') ?? '';
    if (provider === '')
      throw new AuthError('validation_failed', 'Unsupported provider: provider  could not be found');
    const pkce = parsePkceParams({
      code_challenge: query('code_challenge'),
      code_challenge_method: query('code_challenge_method'),
    });
    const url = await startAuthorization(deps, {
      provider,
      redirectTo: redirectFor(deps, c, query('redirect_to')),
      scopes: query('scopes'),
      pkce,
      extra: extraParams(c.req.queries()),
      linkUserId,
    });
    if (query('skip_http_redirect') === 'true') return c.json({ url });
    return c.redirect(url, 302);
  };
  const callback = async (c: Context<AppEnv>, params: CallbackParams) =>
    c.redirect(await completeAuthorization(deps, params, c.get('meta'), c.get('log')), 302);
  return [
    defineEndpoint({
      method: 'get',
      path: '/authorize',
      access: 'public',
      summary:
        "signInWithOAuth: redirects to the provider (state, nonce and PKCE towards it; the client's own PKCE challenge kept); skip_http_redirect=true answers {url}",
      query: authorizeQuery,
      responses: {
        302: 'To the provider',
        200: 'With skip_http_redirect=true: {url}',
        400: 'validation_failed (unknown or disabled provider, bad PKCE parameters)',
      },
      handler: (c, { query }) => authorize(c, query),
    }),
    defineEndpoint({
      method: 'get',
      path: '/callback',
      access: 'public',
      summary:
        "The provider's answer: signs in and redirects to redirect_to with ?code= (PKCE; the exchange also returns provider_token and provider_refresh_token) or the session with provider_token and provider_refresh_token in the fragment (implicit); failures as error, error_code, error_description",
      query: callbackQuery,
      responses: { 302: 'To redirect_to (or SITE_URL when the state is unknown)' },
      handler: (c, { query }) =>
        callback(c, {
          state: query('state'),
          code: query('code'),
          error: query('error'),
          error_description: query('error_description'),
          iss: c.req.query('iss')?.slice(0, 2048),
        }),
    }),
    defineEndpoint({
      method: 'post',
      path: '/callback',
      access: 'form',
      summary: "The provider's answer posted back (Apple's response_mode=form_post): as GET /callback",
      responses: { 302: 'To redirect_to', 400: 'not a form', 413: 'form too large' },
      handler: async (c) => callback(c, await readForm(c)),
    }),
    defineEndpoint({
      method: 'get',
      path: '/user/identities/authorize',
      access: 'user',
      summary:
        'linkIdentity: as /authorize, the new identity linked to the signed-in user (404 manual_linking_disabled unless SECURITY_MANUAL_LINKING_ENABLED)',
      query: authorizeQuery,
      responses: { 200: '{url}', 302: 'To the provider', 404: 'manual_linking_disabled' },
      handler: (c, { query }) => {
        if (!deps.config.social.manualLinking) throw new AuthError('manual_linking_disabled');
        return authorize(c, query, c.get('auth').user.id);
      },
    }),
    defineEndpoint({
      method: 'delete',
      path: '/user/identities/{identityId}',
      access: 'user',
      summary:
        "unlinkIdentity: removes one of the user's identities, never the last (404 manual_linking_disabled unless SECURITY_MANUAL_LINKING_ENABLED)",
      params: z.object({ identityId: z.string() }),
      responses: {
        200: '{}',
        404: 'manual_linking_disabled / identity_not_found',
        422: 'single_identity_not_deletable',
      },
      handler: async (c, { param }) => {
        await unlinkIdentity(deps, c.get('auth').user, param('identityId'), c.get('meta'));
        return c.json({});
      },
    }),
  ];
}
