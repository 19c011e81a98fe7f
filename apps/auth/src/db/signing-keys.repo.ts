import { asc, eq, sql } from 'drizzle-orm';
import type { StoredKey } from '../crypto/jwt.ts';
import { generateSigningKey } from '../crypto/jwt.ts';
import type { DbOrTx } from './client.ts';
import { signingKeys } from './schema.ts';

export async function listSigningKeys(db: DbOrTx): Promise<StoredKey[]> {
  return db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt));
}

/** The transaction advisory lock of the first-key check ("namaa-ke" in ASCII). */
const FIRST_KEY_LOCK = 0x6e616d61612d6b65n;

/**
 * Creates the first ES256 key on first start; keys live in the database (so every instance shares
 * them). Instances starting together on an empty database must not each add a key: each would sign
 * with its own while the other, having loaded before it existed, rejects its tokens (an unknown kid
 * until the next reload). So the check and the insert run under a transaction advisory lock.
 */
export async function ensureSigningKey(db: DbOrTx): Promise<void> {
  if ((await listSigningKeys(db)).some((k) => k.status === 'active')) return;
  const key = await generateSigningKey();
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${FIRST_KEY_LOCK.toString()}::bigint)`);
    if ((await listSigningKeys(tx)).some((k) => k.status === 'active')) return;
    await tx.insert(signingKeys).values(key).onConflictDoNothing();
  });
}

/** A created_at strictly after every existing key's, whatever the clocks say. */
function after(existing: StoredKey[], now: Date): Date {
  return new Date(Math.max(now.getTime(), ...existing.map((k) => (k.createdAt?.getTime() ?? 0) + 1)));
}

/**
 * Rotation with a standby step, step 1: a new key is published in the JWKS (and accepted by every
 * instance once reloaded) without signing anything yet, so verifiers that cache the key set learn
 * it before the first token it signs. Returns the standby key already waiting, if there is one.
 */
export async function stageSigningKey(db: DbOrTx, now: Date): Promise<{ key: StoredKey; created: boolean }> {
  const existing = await listSigningKeys(db);
  const waiting = existing.filter((k) => k.status === 'standby').at(-1);
  if (waiting) return { key: waiting, created: false };
  const key = { ...(await generateSigningKey()), status: 'standby', createdAt: after(existing, now) };
  await db.insert(signingKeys).values(key);
  return { key, created: true };
}

export type PromoteResult =
  | { outcome: 'promoted'; key: StoredKey; demoted: string[] }
  | { outcome: 'none' }
  | { outcome: 'too_early'; kid: string; readyAt: Date };

/**
 * Step 2: the newest standby key becomes the signer and the active key verify-only, once the
 * standby key has been published for `minPublishedSec` (every verifier's cached key set has had
 * time to expire and be fetched again). The promoted key's created_at is set to now: created_at
 * orders keys by when they started signing, which is what retireSigningKeys reads to know when
 * the previous key stopped.
 */
export async function promoteStandbyKey(
  db: DbOrTx,
  now: Date,
  minPublishedSec: number,
): Promise<PromoteResult> {
  const existing = await listSigningKeys(db);
  const standby = existing.filter((k) => k.status === 'standby').at(-1);
  if (!standby) return { outcome: 'none' };
  const readyAt = new Date((standby.createdAt?.getTime() ?? 0) + minPublishedSec * 1000);
  if (readyAt > now) return { outcome: 'too_early', kid: standby.kid, readyAt };
  const createdAt = after(existing, now);
  const demoted = existing.filter((k) => k.status === 'active').map((k) => k.kid);
  await db.transaction(async (tx) => {
    await tx.update(signingKeys).set({ status: 'verify_only' }).where(eq(signingKeys.status, 'active'));
    await tx.update(signingKeys).set({ status: 'active', createdAt }).where(eq(signingKeys.kid, standby.kid));
  });
  return { outcome: 'promoted', key: { ...standby, status: 'active', createdAt }, demoted };
}

/**
 * Rotation step 1: a new key becomes the signer; every previously active key becomes verify-only
 * (still published in the JWKS, so tokens it signed stay valid until they expire).
 */
export async function addSigningKey(db: DbOrTx, now: Date): Promise<StoredKey> {
  const key = await generateSigningKey();
  // Created strictly after every existing key, so "newest active" is this one.
  const createdAt = after(await listSigningKeys(db), now);
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
