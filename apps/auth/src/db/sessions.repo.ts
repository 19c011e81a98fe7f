import { randomUUID } from 'node:crypto';
import { and, eq, inArray, ne, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from './client.ts';
import { hotQuery, rowFromJson } from './hot-query.ts';
import { type AmrEntry, identities, mfaFactors, refreshTokens, sessions, users } from './schema.ts';
import type { FactorRow, IdentityRow, UserRow } from './users.repo.ts';

export type SessionRow = typeof sessions.$inferSelect;

/** Creates a session and its first refresh token (stored hashed). */
export async function insertSession(
  db: DbOrTx,
  s: {
    userId: string;
    amr: AmrEntry[];
    aal?: string;
    tokenHash: string;
    ip: string;
    userAgent?: string;
    now: Date;
  },
): Promise<SessionRow> {
  const id = randomUUID();
  const [row] = await db
    .insert(sessions)
    .values({
      id,
      userId: s.userId,
      amr: s.amr,
      aal: s.aal ?? 'aal1',
      ip: s.ip,
      userAgent: s.userAgent?.slice(0, 512),
      refreshedAt: s.now,
      createdAt: s.now,
      updatedAt: s.now,
    })
    .returning();
  await db.insert(refreshTokens).values({
    id: randomUUID(),
    tokenHash: s.tokenHash,
    sessionId: id,
    userId: s.userId,
    createdAt: s.now,
    updatedAt: s.now,
  });
  return row as SessionRow;
}

/**
 * Deletes the sessions `where` selects, their refresh tokens first. The order is the point: a
 * refresh locks its token and then its session (the child token's foreign key), so deleting the
 * session first, with its cascade reaching the token last, takes the two locks the other way round
 * and PostgreSQL kills one of the two transactions as a deadlock (a 500 for the client).
 */
export async function deleteSessionsWhere(db: DbOrTx, where: SQL | undefined): Promise<void> {
  // drizzle's and() is typed as possibly undefined: no condition must never mean every session.
  if (!where) throw new Error('deleteSessionsWhere: no condition');
  await db
    .delete(refreshTokens)
    .where(inArray(refreshTokens.sessionId, db.select({ id: sessions.id }).from(sessions).where(where)));
  await db.delete(sessions).where(where);
}

export async function deleteSession(db: DbOrTx, sessionId: string): Promise<void> {
  await deleteSessionsWhere(db, eq(sessions.id, sessionId));
}

export async function deleteUserSessions(
  db: DbOrTx,
  userId: string,
  exceptSessionId?: string,
): Promise<void> {
  await deleteSessionsWhere(
    db,
    exceptSessionId
      ? and(eq(sessions.userId, userId), ne(sessions.id, exceptSessionId))
      : eq(sessions.userId, userId),
  );
}

export type RefreshLookup = {
  /** The presented token as it was before this statement: all the reuse rules need of it. */
  token: { revoked: boolean; revokedAt: Date | null };
  session: SessionRow;
  user: UserRow;
};

export type RefreshOutcome = RefreshLookup & {
  /** True when this statement rotated the presented token (its child is now the active token). */
  rotated: boolean;
  identities: IdentityRow[];
  factors: FactorRow[];
  /** The session's active token hash, read only when the presented token was already revoked. */
  activeHash: string | undefined;
};

// One statement for the whole happy path (see refreshGrant): look the token up with its session and
// user, rotate it only if it is still active and usable (not revoked, session not expired, user not
// banned: `not r.revoked` is re-checked on the locked row, so of two concurrent rotations one wins),
// insert the child, touch the session, and return everything the response needs as one JSON value.
// The final SELECT sees the snapshot from before the writes, i.e. the token as presented.
// $5 / $6: a session that began before $5 (SESSIONS_TIMEBOX) or was last refreshed before $6
// (SESSIONS_INACTIVITY_TIMEOUT) is over; null when that limit is off.
export const REFRESH_SQL = `with tok as (
    select t.id, t.session_id, t.revoked, t.revoked_at, s.user_id, s.not_after, s.created_at, s.refreshed_at, u.banned_until
    from refresh_tokens t join sessions s on s.id = t.session_id join users u on u.id = s.user_id
    where t.token_hash = $1::text),
  revoked as (
    update refresh_tokens r set revoked = true, revoked_at = $2::timestamptz, updated_at = $2::timestamptz
    from tok
    where r.id = tok.id and not r.revoked
      and (tok.not_after is null or tok.not_after > $2::timestamptz)
      and ($5::timestamptz is null or tok.created_at > $5::timestamptz)
      and ($6::timestamptz is null or coalesce(tok.refreshed_at, tok.created_at) > $6::timestamptz)
      and (tok.banned_until is null or tok.banned_until <= $2::timestamptz)
    returning r.token_hash, r.session_id, r.user_id),
  child as (
    insert into refresh_tokens (id, token_hash, parent_hash, session_id, user_id, revoked, created_at, updated_at)
    select $3::uuid, $4::text, token_hash, session_id, user_id, false, $2::timestamptz, $2::timestamptz from revoked
    returning session_id),
  touched as (
    update sessions set refreshed_at = $2::timestamptz, updated_at = $2::timestamptz
    where id = (select session_id from child))
  select json_build_object(
    'rotated', exists (select 1 from child),
    'token', json_build_object('revoked', tok.revoked, 'revoked_at', tok.revoked_at),
    'session', (select row_to_json(s) from sessions s where s.id = tok.session_id),
    'user', (select row_to_json(u) from users u where u.id = tok.user_id),
    'identities', coalesce((select json_agg(i order by i.created_at) from identities i where i.user_id = tok.user_id), '[]'),
    'factors', coalesce((select json_agg(f order by f.created_at) from mfa_factors f where f.user_id = tok.user_id), '[]'),
    'active_hash', case when tok.revoked then (
      select a.token_hash from refresh_tokens a where a.session_id = tok.session_id and not a.revoked
      order by a.created_at desc limit 1) end
  ) as r
  from tok`;

type RefreshJson = {
  rotated: boolean;
  token: { revoked: boolean; revoked_at: string | null };
  session: Record<string, unknown>;
  user: Record<string, unknown>;
  identities: Record<string, unknown>[];
  factors: Record<string, unknown>[];
  active_hash: string | null;
};

/**
 * The refresh hot path in ONE round trip: finds the presented token (by hash) and, when it is the
 * active one of a usable session, rotates it to `childHash`. Returns undefined for an unknown token.
 */
export async function findAndRotateRefreshToken(
  db: Db,
  r: { tokenHash: string; childHash: string; now: Date; startedAfter?: Date; refreshedAfter?: Date },
): Promise<RefreshOutcome | undefined> {
  const rows = await hotQuery<{ r: RefreshJson | string }>(db, 'namaa_refresh_rotate', REFRESH_SQL, [
    r.tokenHash,
    r.now.toISOString(),
    randomUUID(),
    r.childHash,
    r.startedAfter?.toISOString() ?? null,
    r.refreshedAfter?.toISOString() ?? null,
  ]);
  const raw = rows[0]?.r;
  if (!raw) return undefined;
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as RefreshJson;
  return {
    rotated: j.rotated,
    token: { revoked: j.token.revoked, revokedAt: j.token.revoked_at ? new Date(j.token.revoked_at) : null },
    session: rowFromJson(sessions, j.session),
    user: rowFromJson(users, j.user),
    identities: j.identities.map((i) => rowFromJson(identities, i)),
    factors: j.factors.map((f) => rowFromJson(mfaFactors, f)),
    activeHash: j.active_hash ?? undefined,
  };
}

export const SESSION_USER_SQL = `select json_build_object(
    'session', row_to_json(s),
    'user', row_to_json(u),
    'identities', coalesce((select json_agg(i order by i.created_at) from identities i where i.user_id = u.id), '[]'),
    'factors', coalesce((select json_agg(f order by f.created_at) from mfa_factors f where f.user_id = u.id), '[]')
  ) as r
  from sessions s join users u on u.id = s.user_id where s.id = $1::uuid`;

/** The session named by an access token with its user, identities and factors: one round trip (GET /user). */
export async function findSessionWithUserAndRelations(
  db: Db,
  sessionId: string,
): Promise<
  { session: SessionRow; user: UserRow; identities: IdentityRow[]; factors: FactorRow[] } | undefined
> {
  const rows = await hotQuery<{ r: Omit<RefreshJson, 'rotated' | 'token' | 'active_hash'> | string }>(
    db,
    'namaa_session_user',
    SESSION_USER_SQL,
    [sessionId],
  );
  const raw = rows[0]?.r;
  if (!raw) return undefined;
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Omit<RefreshJson, 'rotated'>;
  return {
    session: rowFromJson(sessions, j.session),
    user: rowFromJson(users, j.user),
    identities: j.identities.map((i) => rowFromJson(identities, i)),
    factors: j.factors.map((f) => rowFromJson(mfaFactors, f)),
  };
}

// The write side of a password sign-in in ONE statement (atomic like a transaction): stamp the
// user's last sign-in (and store a rehashed password), create the session and its first refresh
// token, write the audit row, forget the back-off failures, mark the network known to the account
// (rate-limits.ts; re-stamped at most daily, so a busy account's sign-ins write no extra row); return the user with identities and factors for the response.
export const PASSWORD_SESSION_SQL = `with u as (
    update users set last_sign_in_at = $2::timestamptz, encrypted_password = coalesce($3::text, encrypted_password)
    where id = $1::uuid returning *),
  s as (
    insert into sessions (id, user_id, amr, aal, ip, user_agent, refreshed_at, created_at, updated_at)
    select $4::uuid, u.id, $5::jsonb, 'aal1', $6::text, $7::text, $2::timestamptz, $2::timestamptz, $2::timestamptz
    from u returning *),
  r as (
    insert into refresh_tokens (id, token_hash, session_id, user_id, revoked, created_at, updated_at)
    select $8::uuid, $9::text, s.id, s.user_id, false, $2::timestamptz, $2::timestamptz from s),
  a as (
    insert into audit_log_entries (id, action, actor_id, ip_address, payload)
    select $10::uuid, 'login', u.id, $6::text, '{"provider":"email"}'::jsonb from u),
  b as (delete from rate_limit_counters where key = $11::text),
  k as (
    insert into rate_limit_counters (key, window_start, count, last_hit_at)
    select $12::text, timestamptz 'epoch', 1, $2::timestamptz where $12::text is not null
    on conflict (key, window_start) do update set last_hit_at = excluded.last_hit_at
      where rate_limit_counters.last_hit_at < $2::timestamptz - interval '1 day')
  select json_build_object(
    'user', row_to_json(u),
    'session', (select row_to_json(s) from s),
    'identities', coalesce((select json_agg(i order by i.created_at) from identities i where i.user_id = u.id), '[]'),
    'factors', coalesce((select json_agg(f order by f.created_at) from mfa_factors f where f.user_id = u.id), '[]')
  ) as r
  from u`;

/** Starts a password session in one round trip (see PASSWORD_SESSION_SQL). */
export async function startPasswordSession(
  db: Db,
  p: {
    userId: string;
    now: Date;
    newPasswordHash?: string | undefined;
    amr: AmrEntry[];
    ip: string;
    userAgent?: string | undefined;
    tokenHash: string;
    backoffKey?: string | undefined;
    knownKey?: string | undefined;
  },
): Promise<{ user: UserRow; session: SessionRow; identities: IdentityRow[]; factors: FactorRow[] }> {
  const rows = await hotQuery<{ r: Omit<RefreshJson, 'rotated' | 'token' | 'active_hash'> | string }>(
    db,
    'namaa_password_session',
    PASSWORD_SESSION_SQL,
    [
      p.userId,
      p.now.toISOString(),
      p.newPasswordHash ?? null,
      randomUUID(),
      JSON.stringify(p.amr),
      p.ip,
      p.userAgent?.slice(0, 512) ?? null,
      randomUUID(),
      p.tokenHash,
      randomUUID(),
      p.backoffKey ?? null,
      p.knownKey ?? null,
    ],
  );
  const raw = rows[0]?.r;
  if (!raw) throw new Error('user vanished');
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Omit<RefreshJson, 'rotated'>;
  return {
    user: rowFromJson(users, j.user),
    session: rowFromJson(sessions, j.session),
    identities: j.identities.map((i) => rowFromJson(identities, i)),
    factors: j.factors.map((f) => rowFromJson(mfaFactors, f)),
  };
}

export async function findSessionById(db: DbOrTx, id: string): Promise<SessionRow | undefined> {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id));
  return row;
}
