// Identities of third-party providers (features/social): one row per provider account, keyed by
// (provider, provider_id), the account's id at the provider (`sub`).
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from './client.ts';
import { identities, users } from './schema.ts';
import type { AudRole, IdentityRow, UserRow } from './users.repo.ts';

export async function findIdentity(
  db: DbOrTx,
  provider: string,
  providerId: string,
): Promise<IdentityRow | undefined> {
  const [row] = await db
    .select()
    .from(identities)
    .where(and(eq(identities.provider, provider), eq(identities.providerId, providerId)));
  return row;
}

export async function findIdentityById(db: DbOrTx, id: string): Promise<IdentityRow | undefined> {
  const [row] = await db.select().from(identities).where(eq(identities.id, id));
  return row;
}

export async function insertIdentity(
  db: DbOrTx,
  i: {
    userId: string;
    provider: string;
    providerId: string;
    email: string | null;
    data: Record<string, unknown>;
    now: Date;
  },
): Promise<IdentityRow> {
  const [row] = await db
    .insert(identities)
    .values({
      id: randomUUID(),
      userId: i.userId,
      provider: i.provider,
      providerId: i.providerId,
      email: i.email,
      identityData: i.data,
      lastSignInAt: i.now,
      createdAt: i.now,
      updatedAt: i.now,
    })
    .returning();
  return row as IdentityRow;
}

/** A sign-in through the identity: the provider's latest profile replaces the stored one. */
export async function refreshIdentity(
  db: DbOrTx,
  id: string,
  email: string | null,
  data: Record<string, unknown>,
  now: Date,
): Promise<void> {
  await db
    .update(identities)
    .set({ identityData: data, email, lastSignInAt: now, updatedAt: now })
    .where(eq(identities.id, id));
}

export async function deleteIdentity(db: DbOrTx, id: string): Promise<void> {
  await db.delete(identities).where(eq(identities.id, id));
}

/** A user made by a provider's sign-in: no password; the email (if any) as the provider vouches for it. */
export async function insertProviderUser(
  db: DbOrTx,
  u: {
    email: string | null;
    emailConfirmedAt: Date | null;
    provider: string;
    userMetadata: Record<string, unknown>;
    now: Date;
  } & AudRole,
): Promise<UserRow> {
  const [user] = await db
    .insert(users)
    .values({
      id: randomUUID(),
      aud: u.aud,
      role: u.role,
      email: u.email,
      emailConfirmedAt: u.emailConfirmedAt,
      appMetadata: { provider: u.provider, providers: [u.provider] },
      userMetadata: u.userMetadata,
      createdAt: u.now,
      updatedAt: u.now,
    })
    .returning();
  return user as UserRow;
}

/**
 * `app_metadata.providers`: the distinct providers of the user's identities, in the order linked;
 * `provider` (how the account began) stays unless that identity is gone. Locks the user row.
 */
export async function syncProviders(db: DbOrTx, userId: string, now: Date): Promise<UserRow> {
  const [current] = await db
    .select({ appMetadata: users.appMetadata })
    .from(users)
    .where(eq(users.id, userId))
    .for('update');
  if (!current) throw new Error('user vanished');
  const rows = await db
    .select({ provider: identities.provider })
    .from(identities)
    .where(eq(identities.userId, userId))
    .orderBy(identities.createdAt);
  const providers = [...new Set(rows.map((r) => r.provider))];
  const was = current.appMetadata.provider;
  const provider = typeof was === 'string' && providers.includes(was) ? was : providers[0];
  const [user] = await db
    .update(users)
    .set({ appMetadata: { ...current.appMetadata, provider, providers }, updatedAt: now })
    .where(eq(users.id, userId))
    .returning();
  if (!user) throw new Error('user vanished');
  return user;
}
