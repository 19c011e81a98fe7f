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
  let database: Database;
  try {
    database = await openDatabase(databaseOptions(config));
  } catch (err) {
    throw databaseStartupError(config, err);
  }
  try {
    await migrate(database);
  } catch (err) {
    await database.close().catch(() => {});
    throw databaseStartupError(config, err);
  }
  return database;
}
