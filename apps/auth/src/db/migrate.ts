import { fileURLToPath } from 'node:url';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Database } from './client.ts';

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Applies the drizzle-kit migrations; the same SQL for PGlite and PostgreSQL. `folder` is for the
 * upgrade tests, which migrate to an earlier point first.
 */
export async function migrate(database: Database, folder = migrationsFolder): Promise<void> {
  if (database.kind === 'pglite') {
    // biome-ignore lint/suspicious/noExplicitAny: the two drivers' migrators take their own db types
    await migratePglite(database.db as any, { migrationsFolder: folder });
    return;
  }
  // One instance migrates a database at a time in our deployments (tests create a database each).
  // biome-ignore lint/suspicious/noExplicitAny: see above
  await migratePg(database.db as any, { migrationsFolder: folder });
}
