import type { Config } from '../config.ts';
import { type Database, databaseOptions, openDatabase } from '../db/client.ts';
import { migrate } from '../db/migrate.ts';
import { databaseStartupError } from './startup-error.ts';

/**
 * Opens the database the configuration names and applies pending migrations (PostgreSQL: under the
 * advisory lock, see db/migrate.ts). Used by the server and every CLI, so a failure reads the same
 * everywhere: one line naming DATABASE_URL (password redacted) or DATA_DIR, and the cause.
 */
export async function openMigratedDatabase(config: Config): Promise<Database> {
  const options = databaseOptions(config);
  const copyKey =
    !options.databaseUrl && options.dataDir.startsWith('memory://') ? (options.namespace ?? '') : undefined;
  let database: Database;
  try {
    database = await openDatabase({
      ...options,
      fromSnapshot: copyKey === undefined ? undefined : migratedMemoryCopies.get(copyKey),
    });
  } catch (err) {
    throw databaseStartupError(config, err);
  }
  try {
    // On a copy there is nothing to apply; run anyway, so a copy is held to the same check.
    await migrate(database);
    if (copyKey !== undefined && !migratedMemoryCopies.has(copyKey) && database.snapshot)
      migratedMemoryCopies.set(copyKey, await database.snapshot());
  } catch (err) {
    await database.close().catch(() => {});
    throw databaseStartupError(config, err);
  }
  return database;
}

/**
 * In-memory databases (DATA_DIR=memory://: the test servers) are copies of the first one this module
 * instance migrated in the same namespace: one per process, and under Vitest one per test file (it
 * loads each file's modules afresh), so a file starting several servers creates one cluster. A new
 * PGlite cluster (its initdb, in WebAssembly) and the migrations take ~2 s on a 2-core machine;
 * opening a copy ~0.4 s.
 * The copy is taken right after the migrations, before anything else is written, so each database
 * still makes its own signing keys and secrets. ~40 MB per namespace, held for the process's life.
 */
const migratedMemoryCopies = new Map<string, Blob>();
