import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { identities, mfaFactors, users } from './schema.ts';

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

/**
 * A passwordless phone account and its phone identity (POST /otp with a phone). A duplicate phone
 * raises a unique violation (23505).
 */
export async function insertPhoneUser(
  db: DbOrTx,
  u: { phone: string; userMetadata: Record<string, unknown>; now: Date },
): Promise<UserRow> {
  const id = randomUUID();
  const [user] = await db
    .insert(users)
    .values({
      id,
      phone: u.phone,
      appMetadata: { provider: 'phone', providers: ['phone'] },
      userMetadata: u.userMetadata,
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
    confirmedAt: Date | null;
    confirmationSentAt: Date | null;
    now: Date;
  },
): Promise<{ user: UserRow; identity: IdentityRow }> {
  const id = randomUUID();
  const [user] = await db
    .insert(users)
    .values({
      id,
      email: u.email,
      encryptedPassword: u.passwordHash,
      emailConfirmedAt: u.confirmedAt,
      confirmationSentAt: u.confirmationSentAt,
      appMetadata: { provider: 'email', providers: ['email'] },
      userMetadata: u.confirmedAt ? { ...u.userMetadata, email_verified: true } : u.userMetadata,
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
  u: { userMetadata: Record<string, unknown>; now: Date },
): Promise<UserRow> {
  const [user] = await db
    .insert(users)
    .values({
      id: randomUUID(),
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
