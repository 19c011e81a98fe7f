import { randomUUID } from 'node:crypto';
import { sha256 } from '../crypto/tokens.ts';
import type { DbOrTx } from '../db/client.ts';
import type { AmrEntry } from '../db/schema.ts';
import { insertSession, type SessionRow } from '../db/sessions.repo.ts';
import { type FactorRow, type IdentityRow, loadUserRelations, type UserRow } from '../db/users.repo.ts';
import type { Deps, RequestMeta } from './deps.ts';
import { authenticationMethod, customizeClaims } from './hooks/access-token-hook.ts';
import type { Session } from './http/response-schemas.ts';
import { newRefreshToken } from './refresh-token.ts';
import { userJson } from './user-json.ts';

/** The tokens' `iss`: API_EXTERNAL_URL when set (as the Supabase CLI configures GoTrue), else where the API is served. */
export function issuerFor(deps: Deps): string {
  const c = deps.config;
  return c.API_EXTERNAL_URL ?? `${c.SUPABASE_URL ?? c.SITE_URL}${c.API_PATH}`;
}

/**
 * Signs an access token for (user, session). With the custom access-token hook on
 * (HOOK_CUSTOM_ACCESS_TOKEN_*), the claims go through it first; off, it costs one property read.
 */
export async function signAccessToken(
  deps: Deps,
  user: UserRow,
  session: Pick<SessionRow, 'id' | 'aal' | 'amr'>,
  hookInput?: { method?: string | undefined; ip?: string | undefined },
): Promise<{ token: string; expiresAt: number; expiresIn: number }> {
  const now = Math.floor(deps.clock().getTime() / 1000);
  const expiresAt = now + deps.config.JWT_EXPIRY;
  const claims = {
    sub: user.id,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: user.appMetadata,
    user_metadata: user.userMetadata,
    role: user.role,
    aal: session.aal,
    amr: session.amr,
    session_id: session.id,
    is_anonymous: user.isAnonymous,
  };
  if (deps.config.hooks.CUSTOM_ACCESS_TOKEN) {
    // The hook sees the claims in GoTrue's order and shape, registered claims included.
    const custom = await customizeClaims(deps, {
      userId: user.id,
      claims: { aud: deps.config.JWT_AUD, exp: expiresAt, iat: now, iss: issuerFor(deps), ...claims },
      authenticationMethod: hookInput?.method ?? authenticationMethod(session.amr),
      ip: hookInput?.ip,
    });
    return { token: deps.keys.signClaims(custom), expiresAt, expiresIn: deps.config.JWT_EXPIRY };
  }
  const token = deps.keys.sign(claims, now, expiresAt, issuerFor(deps));
  return { token, expiresAt, expiresIn: deps.config.JWT_EXPIRY };
}

/** The user's identities and factors, as its JSON shows them. */
export type UserRelations = { identities: IdentityRow[]; factors: FactorRow[] };

/**
 * The one place a session answer is made, for every grant and verification: the user's JSON (from
 * the relations the caller already read with its own statement, or read here) and a freshly signed
 * access token around the session's refresh token.
 */
export async function issueSession(
  deps: Deps,
  issued: {
    user: UserRow;
    session: Pick<SessionRow, 'id' | 'aal' | 'amr'>;
    refreshToken: string;
    relations?: UserRelations | undefined;
    /** For the custom access-token hook: GoTrue's authentication_method (default: from the amr) and the caller's IP. */
    hook?: { method?: string | undefined; ip?: string | undefined };
  },
): Promise<Session> {
  const { user, session, refreshToken } = issued;
  const relations = issued.relations ?? (await loadUserRelations(deps.db, user.id));
  const access = await signAccessToken(deps, user, session, issued.hook);
  return {
    access_token: access.token,
    token_type: 'bearer',
    expires_in: access.expiresIn,
    expires_at: access.expiresAt,
    refresh_token: refreshToken,
    user: userJson(user, relations.identities, relations.factors),
  };
}

/** Starts a session (inside the caller's transaction); returns it with the raw first refresh token. */
export async function startSession(
  deps: Deps,
  db: DbOrTx,
  user: UserRow,
  method: string,
  meta: RequestMeta,
): Promise<{ session: SessionRow; refreshToken: string }> {
  const now = deps.clock();
  const id = randomUUID();
  const refreshToken = newRefreshToken(id);
  const amr: AmrEntry[] = [{ method, timestamp: Math.floor(now.getTime() / 1000) }];
  const session = await insertSession(db, {
    id,
    userId: user.id,
    amr,
    tokenHash: sha256(refreshToken),
    ip: meta.ip,
    userAgent: meta.userAgent,
    now,
  });
  return { session, refreshToken };
}
