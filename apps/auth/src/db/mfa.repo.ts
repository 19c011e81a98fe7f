import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lte, ne, or, sql } from 'drizzle-orm';
import { type DbOrTx, queryRows } from './client.ts';
import { type AmrEntry, mfaChallenges, mfaFactors, refreshTokens, sessions } from './schema.ts';
import { deleteSessionsWhere, type SessionRow, utcDay } from './sessions.repo.ts';
import type { FactorRow } from './users.repo.ts';

export type ChallengeRow = typeof mfaChallenges.$inferSelect;

export async function listFactors(db: DbOrTx, userId: string): Promise<FactorRow[]> {
  return db.select().from(mfaFactors).where(eq(mfaFactors.userId, userId));
}

/** The user's factor with this id (another user's factor is "not found", never "forbidden"). */
export async function findUserFactor(db: DbOrTx, userId: string, id: string): Promise<FactorRow | undefined> {
  const [row] = await db
    .select()
    .from(mfaFactors)
    .where(and(eq(mfaFactors.id, id), eq(mfaFactors.userId, userId)));
  return row;
}

/**
 * Abandoned enrolments: unverified factors whose last activity (creation or last challenge) is older
 * than `before`, of one user or (the periodic sweep) of everyone. Their challenges and used codes go
 * with them (ON DELETE CASCADE). Returns how many went.
 */
export async function deleteExpiredUnverifiedFactors(
  db: DbOrTx,
  before: Date,
  userId?: string,
): Promise<number> {
  const rows = await db
    .delete(mfaFactors)
    .where(
      and(
        ...(userId ? [eq(mfaFactors.userId, userId)] : []),
        eq(mfaFactors.status, 'unverified'),
        sql`coalesce(${mfaFactors.lastChallengedAt}, ${mfaFactors.createdAt}) < ${before.toISOString()}::timestamptz`,
      ),
    )
    .returning({ id: mfaFactors.id });
  return rows.length;
}

/** Inserts a factor; a duplicate friendly name raises a unique violation (23505). */
export async function insertFactor(
  db: DbOrTx,
  f: {
    userId: string;
    factorType: string;
    friendlyName: string;
    secret?: string;
    phone?: string;
    /** Recovery codes: a factor created verified (nothing to prove about it). */
    verified?: boolean;
    now: Date;
  },
): Promise<FactorRow> {
  const [row] = await db
    .insert(mfaFactors)
    .values({
      id: randomUUID(),
      userId: f.userId,
      factorType: f.factorType,
      friendlyName: f.friendlyName,
      secret: f.secret ?? null,
      phone: f.phone ?? null,
      status: f.verified ? 'verified' : 'unverified',
      createdAt: f.now,
      updatedAt: f.now,
    })
    .returning();
  return row as FactorRow;
}

export async function updateFactor(db: DbOrTx, id: string, patch: Partial<FactorRow>): Promise<FactorRow> {
  const [row] = await db.update(mfaFactors).set(patch).where(eq(mfaFactors.id, id)).returning();
  if (!row) throw new Error('factor vanished');
  return row;
}

/**
 * Claims the right to send a phone factor's code: one conditional UPDATE sets last_challenged_at to
 * `now` only when the previous challenge is at least `floorSec` old. A separate read and write let
 * parallel requests all pass the check; here concurrent claims queue on the row lock and re-check
 * the condition against the winner's value, so exactly one succeeds per floor window. On refusal it
 * returns the time of the challenge that holds the window (for the Retry-After figure), or
 * undefined when the factor no longer exists (unenrolled meanwhile).
 */
export async function claimPhoneChallenge(
  db: DbOrTx,
  id: string,
  now: Date,
  floorSec: number,
): Promise<{ claimed: true } | { claimed: false; lastChallengedAt: Date | undefined }> {
  const cutoff = new Date(now.getTime() - floorSec * 1000);
  const rows = await db
    .update(mfaFactors)
    .set({ lastChallengedAt: now })
    .where(
      and(
        eq(mfaFactors.id, id),
        or(isNull(mfaFactors.lastChallengedAt), lte(mfaFactors.lastChallengedAt, cutoff)),
      ),
    )
    .returning({ id: mfaFactors.id });
  if (rows.length === 1) return { claimed: true };
  const [row] = await db
    .select({ lastChallengedAt: mfaFactors.lastChallengedAt })
    .from(mfaFactors)
    .where(eq(mfaFactors.id, id));
  return { claimed: false, lastChallengedAt: row?.lastChallengedAt ?? undefined };
}

export async function deleteFactor(db: DbOrTx, id: string): Promise<boolean> {
  const rows = await db.delete(mfaFactors).where(eq(mfaFactors.id, id)).returning({ id: mfaFactors.id });
  return rows.length === 1;
}

/** After a factor is verified, the user's other unverified factors of that type go (GoTrue). */
export async function deleteUnverifiedFactorsOfType(
  db: DbOrTx,
  userId: string,
  factorType: string,
  keepId: string,
): Promise<void> {
  await db
    .delete(mfaFactors)
    .where(
      and(
        eq(mfaFactors.userId, userId),
        eq(mfaFactors.factorType, factorType),
        eq(mfaFactors.status, 'unverified'),
        ne(mfaFactors.id, keepId),
      ),
    );
}

export async function insertChallenge(
  db: DbOrTx,
  c: {
    id?: string;
    factorId: string;
    ip: string;
    otpCodeHash?: string;
    webauthnSessionData?: Record<string, unknown>;
    expiresAt: Date;
    now: Date;
  },
): Promise<ChallengeRow> {
  const [row] = await db
    .insert(mfaChallenges)
    .values({
      id: c.id ?? randomUUID(),
      factorId: c.factorId,
      ipAddress: c.ip,
      otpCodeHash: c.otpCodeHash ?? null,
      webauthnSessionData: c.webauthnSessionData ?? null,
      expiresAt: c.expiresAt,
      createdAt: c.now,
    })
    .returning();
  return row as ChallengeRow;
}

export async function findChallenge(
  db: DbOrTx,
  factorId: string,
  challengeId: string,
): Promise<ChallengeRow | undefined> {
  const [row] = await db
    .select()
    .from(mfaChallenges)
    .where(and(eq(mfaChallenges.id, challengeId), eq(mfaChallenges.factorId, factorId)));
  return row;
}

/** Single use: DELETE … RETURNING, so of N concurrent verifications exactly one consumes it. */
export async function consumeChallenge(db: DbOrTx, challengeId: string): Promise<boolean> {
  const rows = await db
    .delete(mfaChallenges)
    .where(eq(mfaChallenges.id, challengeId))
    .returning({ id: mfaChallenges.id });
  return rows.length === 1;
}

export async function deleteChallenge(db: DbOrTx, challengeId: string): Promise<void> {
  await db.delete(mfaChallenges).where(eq(mfaChallenges.id, challengeId));
}

/** Records a TOTP time step as used; false when it was already used for this factor (a replay). */
export async function markTotpStepUsed(db: DbOrTx, factorId: string, timeStep: number): Promise<boolean> {
  const rows = await queryRows<{ factor_id: string }>(
    db,
    sql`insert into used_totp_codes (factor_id, time_step) values (${factorId}::uuid, ${timeStep})
        on conflict do nothing returning factor_id`,
  );
  return rows.length === 1;
}

/** Forgets time steps that can no longer verify (older than the ±1 step window). */
export async function pruneUsedTotpSteps(db: DbOrTx, factorId: string, beforeStep: number): Promise<void> {
  await db.execute(
    sql`delete from used_totp_codes where factor_id = ${factorId}::uuid and time_step < ${beforeStep}`,
  );
}

/**
 * Raises the session to aal2 after a verified factor: records the method in amr (newest first),
 * replaces its refresh token with a new chain (an aal1 refresh token must never yield aal2
 * tokens), and ends the user's other aal1 sessions (GoTrue).
 */
export async function upgradeSession(
  db: DbOrTx,
  s: { session: SessionRow; factorId: string; method: string; newTokenHash: string; now: Date },
): Promise<SessionRow> {
  const ts = Math.floor(s.now.getTime() / 1000);
  const amr: AmrEntry[] = [
    { method: s.method, timestamp: ts },
    ...s.session.amr.filter((a) => a.method !== s.method),
  ];
  const [row] = await db
    .update(sessions)
    .set({
      aal: 'aal2',
      amr,
      factorId: s.factorId,
      updatedAt: s.now,
      refreshedAt: s.now,
      refreshedOn: utcDay(s.now),
      // A new chain: no earlier token of the session leads to this one.
      refreshTokenHash: s.newTokenHash,
      refreshTokenPreviousAt: null,
    })
    .where(eq(sessions.id, s.session.id))
    .returning();
  if (!row) throw new Error('session vanished');
  // A session begun before sessions.refresh_token_hash may still have its token rows.
  await db.delete(refreshTokens).where(eq(refreshTokens.sessionId, s.session.id));
  await deleteSessionsWhere(
    db,
    and(eq(sessions.userId, s.session.userId), ne(sessions.id, s.session.id), eq(sessions.aal, 'aal1')),
  );
  return row;
}

/** After unenrolling: sessions that used the factor lose its method and fall back to aal1. */
export async function downgradeSessionsOfFactor(
  db: DbOrTx,
  factorId: string,
  method: string,
  mfaMethods: string[],
  now: Date,
): Promise<void> {
  const rows = await db.select().from(sessions).where(eq(sessions.factorId, factorId));
  for (const row of rows) {
    const amr = row.amr.filter((a) => a.method !== method);
    const stillAal2 = amr.some((a) => mfaMethods.includes(a.method));
    await db
      .update(sessions)
      .set({ amr, aal: stillAal2 ? 'aal2' : 'aal1', factorId: null, updatedAt: now })
      .where(eq(sessions.id, row.id));
  }
}
