// Who may call an endpoint. Every endpoint declares one access level (define-endpoint.ts), and
// app.ts runs that level's chain of guards in front of it. Hono would also let a sub-router
// `use('*', guard)`, but a sub-router mounted at '/' merges that middleware as '/*' into the parent,
// where it would run for every other router's paths too; GoTrue's paths share no prefix to group
// them by, so each endpoint carries its group's chain instead.
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../config.ts';
import { safeEqual } from '../../crypto/tokens.ts';
import { findSessionById, findSessionWithUserAndRelations } from '../../db/sessions.repo.ts';
import type { FactorRow, IdentityRow } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import type { Deps } from '../deps.ts';
import type { AppEnv } from './context.ts';
import { jsonBody } from './middleware.ts';

/**
 * - `public`: no key (the email link, health, the key set and OpenID configuration, the OpenAPI
 *   document, the development mailbox);
 * - `apikey`: the anon or the service-role key, as the Supabase gateway requires;
 * - `user`: a key and a signed-in user (`Authorization: Bearer <access token>`);
 * - `service`: an admin credential, the service-role key or an admin-role JWT (the admin API's level);
 * - `form`: no key and no JSON body reader: a provider posting its answer back to `/callback`
 *   (Apple's `form_post`), whose handler reads the form itself, bounded.
 */
export type Access = 'public' | 'apikey' | 'user' | 'service' | 'form';

/** Which key the caller presented (recorded by requireApiKey as `c.get('apiKey')`). */
export type ApiKeyKind = 'anon' | 'service';

/**
 * The `apikey` header (or `?apikey=`): the public ANON_KEY or the SERVICE_ROLE_KEY. Records which
 * one it was on the request (`c.get('apiKey')`). With API_KEY_REQUIRED=false a missing or unknown
 * key passes unrecorded.
 */
export function requireApiKey(config: Config): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header('apikey') ?? c.req.query('apikey');
    if (!key) {
      if (!config.API_KEY_REQUIRED) return next();
      throw new AuthError('no_api_key');
    }
    // Constant-time, and both comparisons always run: SERVICE_ROLE_KEY is a secret.
    const anon = safeEqual(key, config.ANON_KEY);
    const service = config.SERVICE_ROLE_KEY !== undefined && safeEqual(key, config.SERVICE_ROLE_KEY);
    // API_KEY_REQUIRED=false is GoTrue's own behaviour: it never reads `apikey` (Supabase's gateway
    // checks it), so a key it does not know is no key at all, neither refused nor a credential.
    if (!anon && !service) {
      if (!config.API_KEY_REQUIRED) return next();
      throw new AuthError('invalid_api_key');
    }
    // Should both keys ever be configured equal, the caller gets the lesser power.
    c.set('apiKey', anon ? 'anon' : 'service');
    return next();
  };
}

/** Who called the admin API, recorded on the request (`c.get('admin')`) and in every audit row. */
export type AdminCaller =
  | { via: 'service_role_key' }
  | { via: 'jwt'; role: string; sub: string | undefined }
  /** The operator CLI (features/admin/admin.cli.ts), run by this operating-system user. */
  | { via: 'cli'; osUser: string };

/** The caller as audit payloads and logs name it: never the key or the token itself. */
export function adminActor(caller: AdminCaller): { actor: string; actor_role: string } {
  if (caller.via === 'service_role_key') return { actor: 'service_role_key', actor_role: 'service_role' };
  if (caller.via === 'cli') return { actor: `cli:${caller.osUser}`, actor_role: 'operator' };
  return { actor: caller.sub ? `jwt:${caller.sub}` : 'jwt', actor_role: caller.role };
}

/**
 * The admin level (GoTrue's requireAdminCredentials): runs after requireApiKey. The credential is
 * `Authorization: Bearer …`, as supabase-js's admin client sends it:
 * - the SERVICE_ROLE_KEY itself (what `createClient(url, SERVICE_ROLE_KEY)` sends; Supabase's gateway
 *   swaps such a `Bearer sb_…` for a service-role JWT, the service has no gateway so it accepts the
 *   key directly);
 * - a JWT signed by one of our keys whose `role` is in JWT_ADMIN_ROLES. Like GoTrue, no `sub`, `aud`
 *   or `exp` is required (an `exp` present is enforced); a `session_id` it carries must exist.
 * No Authorization header: the `apikey` is the credential (a script calling with only that header).
 * A malformed header is 401 no_authorization, a bad JWT 403 bad_jwt, a valid credential without an
 * admin role (a user's access token, the anon key) 403 not_admin "User not allowed".
 */
export function requireAdmin(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined) {
      // No Authorization: the apikey is the credential (as the gateway maps it); requireApiKey
      // already said which key it is.
      if (c.get('apiKey') !== 'service')
        // Without a key check in front (API_KEY_REQUIRED=false) it is GoTrue's answer: no credential.
        throw new AuthError(deps.config.API_KEY_REQUIRED ? 'not_admin' : 'no_authorization');
      c.set('admin', { via: 'service_role_key' });
      return next();
    }
    const match = header.match(/^Bearer\s+(\S+)$/i);
    if (!match) throw new AuthError('no_authorization');
    const token = match[1] as string;
    // Both comparisons always run (constant time): the service key is a secret. The anon key stands
    // for GoTrue's `anon` role, a valid credential but not an admin one; should both keys be
    // configured equal, the caller gets that lesser power.
    const serviceKey = deps.config.SERVICE_ROLE_KEY;
    const isAnon = safeEqual(token, deps.config.ANON_KEY);
    const isService = serviceKey !== undefined && safeEqual(token, serviceKey);
    if (isAnon) throw new AuthError('not_admin');
    if (isService) {
      c.set('admin', { via: 'service_role_key' });
      return next();
    }
    let claims: Awaited<ReturnType<typeof deps.keys.verifyAdmin>>;
    try {
      claims = await deps.keys.verifyAdmin(token);
    } catch (err) {
      const detail = (err as Error).message?.slice(0, 100) ?? 'invalid';
      throw new AuthError('bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`);
    }
    const role = typeof claims.role === 'string' ? claims.role : '';
    if (!deps.config.JWT_ADMIN_ROLES.includes(role)) throw new AuthError('not_admin');
    if (claims.session_id !== undefined) {
      const id = claims.session_id;
      if (typeof id !== 'string' || !UUID.test(id) || !(await findSessionById(deps.db, id)))
        throw new AuthError('session_not_found');
    }
    c.set('admin', {
      via: 'jwt',
      role,
      sub: typeof claims.sub === 'string' ? claims.sub.slice(0, 100) : undefined,
    });
    return next();
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Authenticates `Authorization: Bearer <access token>` and loads its user and session. */
export function requireUser(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = header.match(/^Bearer\s+(\S+)$/i);
    if (!match) throw new AuthError('no_authorization');
    const token = match[1] as string;
    let claims: Awaited<ReturnType<typeof deps.keys.verify>>;
    try {
      claims = await deps.keys.verify(token);
    } catch (err) {
      const detail = (err as Error).message?.slice(0, 100) ?? 'invalid';
      throw new AuthError('bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`);
    }
    if (typeof claims.session_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(claims.session_id))
      throw new AuthError('session_not_found');
    // One prepared statement loads the session, user, identities and factors (GET /user needs all).
    const found = await findSessionWithUserAndRelations(deps.db, claims.session_id);
    if (!found) throw new AuthError('session_not_found');
    if (found.user.id !== claims.sub) throw new AuthError('user_not_found');
    // A ban (the admin API's ban_duration) holds against access tokens issued before it: GoTrue's
    // 403 user_banned on every authenticated endpoint.
    if (found.user.bannedUntil && found.user.bannedUntil > deps.clock())
      throw new AuthError('user_banned', undefined, { status: 403 });
    const auth = { user: found.user, session: found.session };
    loadedRelations.set(auth, { identities: found.identities, factors: found.factors });
    c.set('auth', auth);
    return next();
  };
}

const loadedRelations = new WeakMap<object, { identities: IdentityRow[]; factors: FactorRow[] }>();

/** The identities and factors read together with `c.get('auth')` (as of the start of the request). */
export function authRelations(auth: object): { identities: IdentityRow[]; factors: FactorRow[] } | undefined {
  return loadedRelations.get(auth);
}

/**
 * The chain each access level runs before its endpoint's handler. The body is read after the key
 * check (a caller without a key never has its body read) and before the user check: the order the
 * service has always answered double faults in (bad JSON and no bearer token → bad_json).
 */
export function guardChains(deps: Deps): Record<Access, MiddlewareHandler<AppEnv>[]> {
  const apiKey = requireApiKey(deps.config);
  const body = jsonBody();
  return {
    public: [body],
    apikey: [apiKey, body],
    user: [apiKey, body, requireUser(deps)],
    service: [apiKey, body, requireAdmin(deps)],
    form: [],
  };
}
