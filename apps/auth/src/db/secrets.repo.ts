import { eq } from 'drizzle-orm';
import { randomToken } from '../crypto/tokens.ts';
import type { DbOrTx } from './client.ts';
import { serverSecrets } from './schema.ts';

/** Returns the named server secret, creating it on first use (race-safe: first insert wins). */
export async function getOrCreateSecret(db: DbOrTx, name: string): Promise<string> {
  await db
    .insert(serverSecrets)
    .values({ name, value: randomToken(32) })
    .onConflictDoNothing();
  const [row] = await db.select().from(serverSecrets).where(eq(serverSecrets.name, name));
  if (!row) throw new Error(`secret ${name} missing`);
  return row.value;
}
