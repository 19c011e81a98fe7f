import { randomUUID } from 'node:crypto';
import { and, eq, inArray, ne, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from './client.ts';
import { hotQuery, rowFromJson } from './hot-query.ts';
import { type AmrEntry, identities, mfaFactors, refreshTokens, sessions, users } from './schema.ts';
import type { FactorRow, IdentityRow, UserRow } from './users.repo.ts';

export type SessionRow = typeof sessions.$inferSelect;

/**
 * Creates a session holding the hash of its first refresh token. The caller picks the id: the
 * token names its session (core/refresh-token.ts).
 */
export async function insertSession(
  db: DbOrTx,
  s: {
    id: string;
    userId: string;
    amr: AmrEntry[];
    aal?: string;
    tokenHash: string;
    ip: string;
    userAgent?: string;
    now: Date;
  },
): Promise<SessionRow> {
  const [row] = await db
    .insert(sessions)
    .values({
      id: s.id,
      userId: s.userId,
      amr: s.amr,
      aal: s.aal ?? 'aal1',
      ip: s.ip,
      userAgent: s.userAgent?.slice(0, 512),
      refreshTokenHash: s.tokenHash,
      refreshedAt: s.now,
      refreshedOn: utcDay(s.now),
      createdAt: s.now,
      updatedAt: s.now,
    })
    .returning();
  return row as SessionRow;
}

/** sessions.refreshed_on for a time. */
export const utcDay = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * How far sessions.refreshed_on may lag the day of the last refresh: a refresh moves it only when it
 * is this many days behind, so it is at most that stale (see ROTATE_SET).
 */
export const REFRESHED_ON_SLACK_DAYS = 7;

/**
 * Deletes the sessions `where` selects, their refresh_tokens rows first. The order is the point: a
 * refresh of a token issued before sessions held their tokens (LEGACY_REFRESH_SQL) locks its row and
 * then its session, so deleting the session first, with its cascade reaching the row last, takes the
 * two locks the other way round and PostgreSQL kills one of the two transactions as a deadlock (a
 * 500 for the client). A current refresh locks only its session row.
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

/** The session's rotation state as a presented refresh token finds it (before this statement). */
export type RefreshLookup = {
  /**
   * Whether the presented token was the session's active one, and (pre-format tokens: their row's)
   * when it was rotated, if it was.
   */
  token: { active: boolean; revokedAt: Date | null };
  session: SessionRow;
  user: UserRow;
};

export type RefreshOutcome = RefreshLookup & {
  /** True when this statement rotated the presented token (its child is now the active token). */
  rotated: boolean;
  identities: IdentityRow[];
  factors: FactorRow[];
  /** The session's active token hash. */
  activeHash: string | undefined;
};

// Whether a session may still be refreshed, on the `tok` row of the statements below: not expired
// (not_after; $5: begun before SESSIONS_TIMEBOX's cut-off; $6: last refreshed before
// SESSIONS_INACTIVITY_TIMEOUT's; null when that limit is off) and its user not banned. The
// statements never rotate a token of a session this rejects; features/session/refresh.ts says why.
const USABLE = `(tok.not_after is null or tok.not_after > $2::timestamptz)
      and ($5::timestamptz is null or tok.created_at > $5::timestamptz)
      and ($6::timestamptz is null or coalesce(tok.refreshed_at, tok.created_at) > $6::timestamptz)
      and (tok.banned_until is null or tok.banned_until <= $2::timestamptz)`;

// The session's new state after a rotation to the child whose hash is $4. refreshed_on (the only
// indexed column a refresh changes) moves only once it is a week behind: the update stays HOT for the
// other refreshes of the week (REFRESHED_ON_SLACK_DAYS, which the inactivity sweep allows for).
const ROTATE_SET = `refresh_token_hash = $4::text, refresh_token_previous_at = s.refreshed_at,
      refreshed_at = $2::timestamptz,
      refreshed_on = case when s.refreshed_on > ($2::timestamptz at time zone 'UTC')::date - ${REFRESHED_ON_SLACK_DAYS}
        then s.refreshed_on else ($2::timestamptz at time zone 'UTC')::date end,
      updated_at = $2::timestamptz`;

// What the response needs, as one JSON value; the reads see the snapshot from before the writes,
// i.e. the session as the presented token found it.
const REFRESH_RESULT = `'session', (select row_to_json(s) from sessions s where s.id = tok.session_id),
    'user', (select row_to_json(u) from users u where u.id = tok.user_id),
    'identities', coalesce((select json_agg(i order by i.created_at) from identities i where i.user_id = tok.user_id), '[]'),
    'factors', coalesce((select json_agg(f order by f.created_at) from mfa_factors f where f.user_id = tok.user_id), '[]')`;

// One statement for the whole happy path (see refreshGrant): find the session the token names ($1)
// with its user, rotate it only if $3 is still its active token's hash and the session usable (the
// hash is re-checked on the locked row, so of two concurrent rotations one wins), and return
// everything the response needs. One row read and updated by primary key; the update changes no
// indexed column except refreshed_on once a week, so it is a HOT update (sessions keep page room
// for it: fillfactor 90, migration 0013).
export const REFRESH_SQL = `with tok as (
    select s.id as session_id, s.user_id, s.not_after, s.created_at, s.refreshed_at,
      s.refresh_token_hash, u.banned_until
    from sessions s join users u on u.id = s.user_id
    where s.id = $1::uuid),
  rotated as (
    update sessions s set ${ROTATE_SET}
    from tok
    where s.id = tok.session_id and s.refresh_token_hash = $3::text and ${USABLE}
    returning s.id)
  select json_build_object(
    'rotated', exists (select 1 from rotated),
    'active', tok.refresh_token_hash = $3::text,
    'revoked_at', null,
    'active_hash', tok.refresh_token_hash,
    ${REFRESH_RESULT}
  ) as r
  from tok`;

// The same for a token issued before sessions.refresh_token_hash (its own refresh_tokens row, found
// by hash $3; $1 is the session the caller read from that row): mark the row rotated and move the
// session to the current format, its child's hash $4 on the session row.
export const LEGACY_REFRESH_SQL = `with tok as (
    select t.id, t.session_id, t.revoked, t.revoked_at, s.user_id, s.not_after, s.created_at,
      s.refreshed_at, s.refresh_token_hash, u.banned_until
    from refresh_tokens t join sessions s on s.id = t.session_id join users u on u.id = s.user_id
    where t.token_hash = $3::text and t.session_id = $1::uuid),
  revoked as (
    update refresh_tokens r set revoked = true, revoked_at = $2::timestamptz, updated_at = $2::timestamptz
    from tok
    where r.id = tok.id and not r.revoked and tok.refresh_token_hash is null and ${USABLE}
    returning r.session_id),
  rotated as (
    update sessions s set ${ROTATE_SET}
    where s.id = (select session_id from revoked)
    returning s.id)
  select json_build_object(
    'rotated', exists (select 1 from rotated),
    'active', not tok.revoked and tok.refresh_token_hash is null,
    'revoked_at', tok.revoked_at,
    'active_hash', coalesce(tok.refresh_token_hash, (
      select a.token_hash from refresh_tokens a where a.session_id = tok.session_id and not a.revoked
      order by a.created_at desc limit 1)),
    ${REFRESH_RESULT}
  ) as r
  from tok`;

/** A session with its user, identities and factors, as the hot statements return them. */
type SessionUserJson = {
  session: Record<string, unknown>;
  user: Record<string, unknown>;
  identities: Record<string, unknown>[];
  factors: Record<string, unknown>[];
};

type RefreshJson = SessionUserJson & {
  rotated: boolean;
  active: boolean;
  revoked_at: string | null;
  active_hash: string | null;
};

/**
 * The refresh hot path in ONE round trip: finds the session `sessionId` and, when `tokenHash` is its
 * active token's and the session usable, rotates it to `childHash`. `legacy`: the token is a
 * refresh_tokens row of that session (see LEGACY_REFRESH_SQL). Undefined for an unknown session or
 * (legacy) token.
 */
export async function findAndRotateRefreshToken(
  db: Db,
  r: {
    sessionId: string;
    tokenHash: string;
    childHash: string;
    now: Date;
    startedAfter?: Date;
    refreshedAfter?: Date;
    legacy?: boolean;
  },
): Promise<RefreshOutcome | undefined> {
  const rows = await hotQuery<{ r: RefreshJson | string }>(
    db,
    r.legacy ? 'namaa_refresh_rotate_legacy' : 'namaa_refresh_rotate',
    r.legacy ? LEGACY_REFRESH_SQL : REFRESH_SQL,
    [
      r.sessionId,
      r.now.toISOString(),
      r.tokenHash,
      r.childHash,
      r.startedAfter?.toISOString() ?? null,
      r.refreshedAfter?.toISOString() ?? null,
    ],
  );
  const raw = rows[0]?.r;
  if (!raw) return undefined;
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as RefreshJson;
  return {
    rotated: j.rotated,
    token: { active: j.active, revokedAt: j.revoked_at ? new Date(j.revoked_at) : null },
    session: rowFromJson(sessions, j.session),
    user: rowFromJson(users, j.user),
    identities: j.identities.map((i) => rowFromJson(identities, i)),
    factors: j.factors.map((f) => rowFromJson(mfaFactors, f)),
    activeHash: j.active_hash ?? undefined,
  };
}

/** The session a pre-format refresh token (a refresh_tokens row) belongs to. */
export async function findLegacyRefreshTokenSession(db: Db, tokenHash: string): Promise<string | undefined> {
  const [row] = await db
    .select({ sessionId: refreshTokens.sessionId })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, tokenHash));
  return row?.sessionId;
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
  const rows = await hotQuery<{
    r: SessionUserJson | string;
  }>(db, 'namaa_session_user', SESSION_USER_SQL, [sessionId]);
  const raw = rows[0]?.r;
  if (!raw) return undefined;
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as SessionUserJson;
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
    insert into sessions (id, user_id, amr, aal, ip, user_agent, refresh_token_hash, refreshed_at,
      refreshed_on, created_at, updated_at)
    select $4::uuid, u.id, $5::jsonb, 'aal1', $6::text, $7::text, $8::text, $2::timestamptz,
      ($2::timestamptz at time zone 'UTC')::date, $2::timestamptz, $2::timestamptz
    from u returning *),
  a as (
    insert into audit_log_entries (id, action, actor_id, ip_address, payload)
    select $9::uuid, 'login', u.id, $6::text, '{"provider":"email"}'::jsonb from u),
  b as (delete from rate_limit_counters where key = $10::text),
  k as (
    insert into rate_limit_counters (key, window_start, count, last_hit_at)
    select $11::text, timestamptz 'epoch', 1, $2::timestamptz where $11::text is not null
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
    /** The new session's id (its refresh token names it: core/refresh-token.ts). */
    sessionId: string;
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
  const rows = await hotQuery<{
    r: SessionUserJson | string;
  }>(db, 'namaa_password_session', PASSWORD_SESSION_SQL, [
    p.userId,
    p.now.toISOString(),
    p.newPasswordHash ?? null,
    p.sessionId,
    JSON.stringify(p.amr),
    p.ip,
    p.userAgent?.slice(0, 512) ?? null,
    p.tokenHash,
    randomUUID(),
    p.backoffKey ?? null,
    p.knownKey ?? null,
  ]);
  const raw = rows[0]?.r;
  if (!raw) throw new Error('user vanished');
  const j = (typeof raw === 'string' ? JSON.parse(raw) : raw) as SessionUserJson;
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
