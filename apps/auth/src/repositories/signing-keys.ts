import { asc } from 'drizzle-orm';
import type { StoredKey } from '../crypto/jwt.ts';
import { generateSigningKey } from '../crypto/jwt.ts';
import type { DbOrTx } from '../db/client.ts';
import { signingKeys } from '../db/schema.ts';

export async function listSigningKeys(db: DbOrTx): Promise<StoredKey[]> {
  return db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt));
}

/** Creates the first ES256 key on first start; keys live in the database (so every instance shares them). */
export async function ensureSigningKey(db: DbOrTx): Promise<void> {
  const keys = await listSigningKeys(db);
  if (keys.some((k) => k.status === 'active')) return;
  const key = await generateSigningKey();
  await db.insert(signingKeys).values(key).onConflictDoNothing();
}
