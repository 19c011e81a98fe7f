import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, ilike, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { identities, mfaFactors, oneTimeTokens, users } from './schema.ts';
import { deleteUserSessions } from './sessions.repo.ts';

export type UserRow = typeof users.$inferSelect;
export type IdentityRow = typeof identities.$inferSelect;
export type FactorRow = typeof mfaFactors.$inferSelect;

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row;
}

/** By phone, stored as GoTrue stores it: E.164 digits without the "+". */
export async function findUserByPhone(db: DbOrTx, phone: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.phone, phone));
  return row;
}

/** The account whose pending phone change (PUT /user { phone }) goes to this number. */
export async function findUserByPendingPhone(db: DbOrTx, phone: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.phoneChange, phone)).limit(1);
  return row;
}

/**
 * A passwordless phone account and its phone identity (POST /otp with a phone). A duplicate phone
 * raises a unique violation (23505).
 */
export async function insertPhoneUser(
  db: DbOrTx,
  u: {
    phone: string;
    userMetadata: Record<string, unknown>;
    now: Date;
    /** A phone + password sign-up's argon2id hash (none for a passwordless account). */
    passwordHash?: string | null;
    /** The privacy notice accepted with this sign-up (core/privacy-consent.ts). */
    consent?: { privacyNoticeVersion: string; privacyNoticeAcceptedAt: Date } | undefined;
    /** The id the before_user_created hook was shown (core/hooks/user-hooks.ts). */
    id?: string | undefined;
  } & AudRole,
): Promise<UserRow> {
  const id = u.id ?? randomUUID();
  const [user] = await db
    .insert(users)
    .values({
      id,
      aud: u.aud,
      role: u.role,
      phone: u.phone,
      encryptedPassword: u.passwordHash ?? null,
      appMetadata: { provider: 'phone', providers: ['phone'] },
      userMetadata: u.userMetadata,
      ...u.consent,
      createdAt: u.now,
      updatedAt: u.now,
    })
    .returning();
  await db.insert(identities).values({
    id: randomUUID(),
    providerId: id,
    userId: id,
    provider: 'phone',
    identityData: { sub: id, phone: u.phone, email_verified: false, phone_verified: false },
    createdAt: u.now,
    updatedAt: u.now,
  });
  return user as UserRow;
}

/** Marks the phone confirmed (idempotent) and mirrors it into the phone identity and metadata. */
export async function confirmPhone(db: DbOrTx, user: UserRow, now: Date): Promise<UserRow> {
  if (user.phoneConfirmedAt) return user;
  const updated = await updateUser(db, user.id, {
    phoneConfirmedAt: now,
    userMetadata: { ...user.userMetadata, phone_verified: true },
    updatedAt: now,
  });
  await db
    .update(identities)
    .set({
      identityData: sql`${identities.identityData} || '{"phone_verified": true}'::jsonb`,
      updatedAt: now,
    })
    .where(and(eq(identities.userId, user.id), eq(identities.provider, 'phone')));
  return updated;
}

export async function findUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

/**
 * The user row, locked (SELECT … FOR UPDATE) until the transaction ends: a read-modify-write of the
 * row (the metadata merge) then sees every earlier committed write and no concurrent one slips in.
 */
export async function lockUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id)).for('update');
  return row;
}

export async function findUserByPendingEmail(db: DbOrTx, newEmail: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.emailChange, newEmail));
  return row;
}

export async function loadUserRelations(
  db: DbOrTx,
  userId: string,
): Promise<{ identities: IdentityRow[]; factors: FactorRow[] }> {
  const [ids, factors] = await Promise.all([
    db.select().from(identities).where(eq(identities.userId, userId)),
    db.select().from(mfaFactors).where(eq(mfaFactors.userId, userId)),
  ]);
  return { identities: ids, factors };
}

/** The identities and factors of many users in two statements (a page of the admin user list). */
export async function loadRelationsOfUsers(
  db: DbOrTx,
  userIds: string[],
): Promise<Map<string, { identities: IdentityRow[]; factors: FactorRow[] }>> {
  const out = new Map(
    userIds.map((id) => [id, { identities: [] as IdentityRow[], factors: [] as FactorRow[] }]),
  );
  if (userIds.length === 0) return out;
  const [ids, factors] = await Promise.all([
    db.select().from(identities).where(inArray(identities.userId, userIds)),
    db.select().from(mfaFactors).where(inArray(mfaFactors.userId, userIds)),
  ]);
  for (const i of ids) out.get(i.userId)?.identities.push(i);
  for (const f of factors) out.get(f.userId)?.factors.push(f);
  return out;
}

/**
 * Inserts the user and its email identity. A duplicate email raises a unique violation (23505).
 * `passwordHash` null: a passwordless account (POST /otp), which signs in by link or code only.
 */
export async function insertEmailUser(
  db: DbOrTx,
  u: {
    email: string;
    passwordHash: string | null;
    userMetadata: Record<string, unknown>;
    /** The privacy notice accepted with this sign-up (core/privacy-consent.ts). */
    consent?: { privacyNoticeVersion: string; privacyNoticeAcceptedAt: Date } | undefined;
    confirmedAt: Date | null;
    confirmationSentAt: Date | null;
    now: Date;
    /** The id the before_user_created hook was shown (core/hooks/user-hooks.ts). */
    id?: string | undefined;
  } & AudRole,
): Promise<{ user: UserRow; identity: IdentityRow }> {
  const id = u.id ?? randomUUID();
  const [user] = await db
    .insert(users)
    .values({
      id,
      aud: u.aud,
      role: u.role,
      email: u.email,
      encryptedPassword: u.passwordHash,
      emailConfirmedAt: u.confirmedAt,
      confirmationSentAt: u.confirmationSentAt,
      appMetadata: { provider: 'email', providers: ['email'] },
      userMetadata: u.confirmedAt ? { ...u.userMetadata, email_verified: true } : u.userMetadata,
      ...u.consent,
      createdAt: u.now,
      updatedAt: u.now,
    })
    .returning();
  const [identity] = await db
    .insert(identities)
    .values({
      id: randomUUID(),
      providerId: id,
      userId: id,
      provider: 'email',
      email: u.email,
      identityData: {
        sub: id,
        email: u.email,
        email_verified: u.confirmedAt !== null,
        phone_verified: false,
      },
      createdAt: u.now,
      updatedAt: u.now,
    })
    .returning();
  return { user: user as UserRow, identity: identity as IdentityRow };
}

/**
 * Inserts an anonymous user (POST /signup with neither email nor phone): no address, no password, no
 * identity, and GoTrue's empty app_metadata (no provider).
 */
export async function insertAnonymousUser(
  db: DbOrTx,
  u: { userMetadata: Record<string, unknown>; now: Date; id?: string | undefined } & AudRole,
): Promise<UserRow> {
  const [user] = await db
    .insert(users)
    .values({
      id: u.id ?? randomUUID(),
      aud: u.aud,
      role: u.role,
      isAnonymous: true,
      appMetadata: {},
      userMetadata: u.userMetadata,
      lastSignInAt: u.now,
      createdAt: u.now,
      updatedAt: u.now,
    })
    .returning();
  return user as UserRow;
}

export async function updateUser(db: DbOrTx, id: string, patch: Partial<UserRow>): Promise<UserRow> {
  const [row] = await db.update(users).set(patch).where(eq(users.id, id)).returning();
  if (!row) throw new Error('user vanished');
  return row;
}

/** Marks the email confirmed (idempotent) and mirrors it into the identity and metadata. */
export async function confirmEmail(db: DbOrTx, user: UserRow, now: Date): Promise<UserRow> {
  if (user.emailConfirmedAt) return user;
  const updated = await updateUser(db, user.id, {
    emailConfirmedAt: now,
    userMetadata: { ...user.userMetadata, email_verified: true },
    updatedAt: now,
  });
  await db
    .update(identities)
    .set({
      identityData: sql`${identities.identityData} || '{"email_verified": true}'::jsonb`,
      updatedAt: now,
    })
    .where(and(eq(identities.userId, user.id), eq(identities.provider, 'email')));
  return updated;
}

/**
 * Counts one confirmation of the pending email change and returns the user with the new count. One
 * UPDATE: when both links are used at once, the second waits on the row lock and counts on top of
 * the first, so exactly one of them sees the change complete.
 */
export async function countEmailChangeConfirmation(db: DbOrTx, id: string): Promise<UserRow> {
  const [row] = await db
    .update(users)
    .set({ emailChangeConfirmStatus: sql`${users.emailChangeConfirmStatus} + 1` })
    .where(eq(users.id, id))
    .returning();
  if (!row) throw new Error('user vanished');
  return row;
}

/**
 * Applies a confirmed email change to the user and its email identity. An account without an email
 * identity (an anonymous user adding its first address) gets one, and with it stops being anonymous
 * and becomes an email account, keeping its id and metadata (GoTrue's rule).
 */
export async function applyEmailChange(
  db: DbOrTx,
  user: UserRow,
  newEmail: string,
  now: Date,
): Promise<UserRow> {
  const updated = await updateUser(db, user.id, {
    email: newEmail,
    emailChange: null,
    emailChangeSentAt: null,
    emailChangeConfirmStatus: 0,
    emailConfirmedAt: user.emailConfirmedAt ?? now,
    updatedAt: now,
  });
  const changed = await db
    .update(identities)
    .set({
      email: newEmail,
      identityData: sql`${identities.identityData} || ${JSON.stringify({ email: newEmail, email_verified: true })}::jsonb`,
      updatedAt: now,
    })
    .where(and(eq(identities.userId, user.id), eq(identities.provider, 'email')))
    .returning({ id: identities.id });
  if (changed.length > 0) return updated;
  await db.insert(identities).values({
    id: randomUUID(),
    providerId: user.id,
    userId: user.id,
    provider: 'email',
    email: newEmail,
    identityData: { sub: user.id, email: newEmail, email_verified: true, phone_verified: false },
    createdAt: now,
    updatedAt: now,
  });
  const providers = Array.isArray(updated.appMetadata.providers) ? updated.appMetadata.providers : [];
  return updateUser(db, user.id, {
    isAnonymous: false,
    appMetadata: {
      ...updated.appMetadata,
      provider: updated.appMetadata.provider ?? 'email',
      providers: [...new Set([...providers, 'email'])],
    },
  });
}

/** `%` and `_` in a search string are literal, not wildcards. */
function likePattern(search: string): string {
  return `%${search.replaceAll(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * One page of users, newest first (GoTrue's default order), and the total; `emailContains` filters
 * by a case-insensitive substring of the email.
 */
export async function listUsersPage(
  db: DbOrTx,
  p: { offset: number; limit: number; emailContains?: string | undefined },
): Promise<{ rows: UserRow[]; total: number }> {
  const where = p.emailContains ? ilike(users.email, likePattern(p.emailContains)) : undefined;
  const [rows, [totalRow]] = await Promise.all([
    db
      .select()
      .from(users)
      .where(where)
      .orderBy(desc(users.createdAt), desc(users.id))
      .limit(p.limit)
      .offset(p.offset),
    db.select({ n: count() }).from(users).where(where),
  ]);
  return { rows, total: Number(totalRow?.n ?? 0) };
}

/** A new user's `aud` and `role`: JWT_AUD and JWT_DEFAULT_GROUP_NAME (GoTrue's), or the admin's choice of role. */
export type AudRole = { aud: string; role: string };

export type NewUser = {
  id: string;
  aud: string;
  email: string | null;
  phone: string | null;
  passwordHash: string | null;
  role: string;
  emailConfirmedAt: Date | null;
  phoneConfirmedAt: Date | null;
  invitedAt: Date | null;
  confirmationSentAt: Date | null;
  bannedUntil: Date | null;
  appMetadata: Record<string, unknown>;
  userMetadata: Record<string, unknown>;
  now: Date;
};

/**
 * Inserts a user with an identity per address it has (email, phone), as GoTrue's admin create does.
 * A duplicate id, email or phone raises a unique violation (23505).
 */
export async function insertUser(db: DbOrTx, u: NewUser): Promise<UserRow> {
  const [user] = await db
    .insert(users)
    .values({
      id: u.id,
      aud: u.aud,
      email: u.email,
      phone: u.phone,
      encryptedPassword: u.passwordHash,
      role: u.role,
      emailConfirmedAt: u.emailConfirmedAt,
      phoneConfirmedAt: u.phoneConfirmedAt,
      invitedAt: u.invitedAt,
      confirmationSentAt: u.confirmationSentAt,
      bannedUntil: u.bannedUntil,
      appMetadata: u.appMetadata,
      userMetadata: u.userMetadata,
      createdAt: u.now,
      updatedAt: u.now,
    })
    .returning();
  const rows: (typeof identities.$inferInsert)[] = [];
  if (u.email)
    rows.push({
      id: randomUUID(),
      providerId: u.id,
      userId: u.id,
      provider: 'email',
      email: u.email,
      identityData: {
        sub: u.id,
        email: u.email,
        email_verified: u.emailConfirmedAt !== null,
        phone_verified: false,
      },
      createdAt: u.now,
      updatedAt: u.now,
    });
  if (u.phone)
    rows.push({
      id: randomUUID(),
      providerId: u.id,
      userId: u.id,
      provider: 'phone',
      identityData: {
        sub: u.id,
        phone: u.phone,
        email_verified: false,
        phone_verified: u.phoneConfirmedAt !== null,
      },
      createdAt: u.now,
      updatedAt: u.now,
    });
  if (rows.length > 0) await db.insert(identities).values(rows);
  return user as UserRow;
}

/** Mirrors a changed address into the user's identity of that provider. */
export async function setIdentityAddress(
  db: DbOrTx,
  userId: string,
  provider: 'email' | 'phone',
  address: string,
  verified: boolean,
  now: Date,
): Promise<void> {
  const patch =
    provider === 'email'
      ? { email: address, email_verified: verified }
      : { phone: address, phone_verified: verified };
  const updated = await db
    .update(identities)
    .set({
      ...(provider === 'email' ? { email: address } : {}),
      identityData: sql`${identities.identityData} || ${JSON.stringify(patch)}::jsonb`,
      updatedAt: now,
    })
    .where(and(eq(identities.userId, userId), eq(identities.provider, provider)))
    .returning({ id: identities.id });
  if (updated.length === 0)
    await db.insert(identities).values({
      id: randomUUID(),
      providerId: userId,
      userId,
      provider,
      email: provider === 'email' ? address : null,
      identityData: { sub: userId, email_verified: false, phone_verified: false, ...patch },
      createdAt: now,
      updatedAt: now,
    });
}

/**
 * Deletes the user; identities, factors and links go with it (cascade). The sessions go first, in
 * the lock order a concurrent refresh uses (deleteSessionsWhere).
 */
export async function deleteUserById(db: DbOrTx, id: string): Promise<boolean> {
  await deleteUserSessions(db, id);
  const rows = await db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
  return rows.length === 1;
}

/**
 * GoTrue's soft delete: the row stays (its id, so foreign references and audit rows still resolve)
 * with `deleted_at` set, but everything that could sign it in or identify the person goes: email,
 * phone, password, metadata, identities, factors, sessions and pending links.
 */
export async function softDeleteUser(db: DbOrTx, id: string, now: Date): Promise<UserRow | undefined> {
  const [row] = await db
    .update(users)
    .set({
      email: null,
      phone: null,
      encryptedPassword: null,
      emailChange: null,
      phoneChange: null,
      appMetadata: {},
      userMetadata: {},
      deletedAt: now,
      updatedAt: now,
    })
    .where(eq(users.id, id))
    .returning();
  if (!row) return undefined;
  await db.delete(identities).where(eq(identities.userId, id));
  await db.delete(mfaFactors).where(eq(mfaFactors.userId, id));
  await deleteUserSessions(db, id);
  await db.delete(oneTimeTokens).where(eq(oneTimeTokens.userId, id));
  return row;
}
