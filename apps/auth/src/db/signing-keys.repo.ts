import { asc, eq } from 'drizzle-orm';
import type { StoredKey } from '../crypto/jwt.ts';
import { generateSigningKey } from '../crypto/jwt.ts';
import type { DbOrTx } from './client.ts';
import { signingKeys } from './schema.ts';

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

/**
 * Rotation step 1: a new key becomes the signer; every previously active key becomes verify-only
 * (still published in the JWKS, so tokens it signed stay valid until they expire).
 */
export async function addSigningKey(db: DbOrTx, now: Date): Promise<StoredKey> {
  const key = await generateSigningKey();
  // Created strictly after every existing key, whatever the clocks say, so "newest active" is this one.
  const existing = await listSigningKeys(db);
  const newest = Math.max(now.getTime(), ...existing.map((k) => (k.createdAt?.getTime() ?? 0) + 1));
  const createdAt = new Date(newest);
  await db.transaction(async (tx) => {
    await tx.update(signingKeys).set({ status: 'verify_only' }).where(eq(signingKeys.status, 'active'));
    await tx.insert(signingKeys).values({ ...key, createdAt });
  });
  return { ...key, createdAt };
}

/**
 * Rotation step 2: retires verify-only keys that can no longer have signed a valid token. A key
 * stopped signing when the next key was created; tokens live JWT_EXPIRY seconds; `graceSec` covers
 * instances that had not reloaded yet (they reload every 60 s) and clock skew. Retired keys leave
 * the JWKS and their private half is erased.
 */
export async function retireSigningKeys(
  db: DbOrTx,
  now: Date,
  jwtExpirySec: number,
  graceSec = 120,
): Promise<{ retired: string[]; kept: Array<{ kid: string; retirableAt: Date }> }> {
  const keys = await listSigningKeys(db);
  const retired: string[] = [];
  const kept: Array<{ kid: string; retirableAt: Date }> = [];
  for (const [i, k] of keys.entries()) {
    if (k.status !== 'verify_only') continue;
    const successor = keys.slice(i + 1).find((n) => n.createdAt !== undefined);
    const stoppedSigning = successor?.createdAt ?? now;
    const retirableAt = new Date(stoppedSigning.getTime() + (jwtExpirySec + graceSec) * 1000);
    if (retirableAt <= now) {
      await db
        .update(signingKeys)
        .set({ status: 'retired', retiredAt: now, privateJwk: {} })
        .where(eq(signingKeys.kid, k.kid));
      retired.push(k.kid);
    } else kept.push({ kid: k.kid, retirableAt });
  }
  return { retired, kept };
}
