// Applies pending database migrations and exits: the explicit step for deploy pipelines (as
// `gotrue migrate`). The server migrates at start too, so this is optional; both take the same
// PostgreSQL advisory lock (db/migrate.ts), so running it while instances start is safe.

import { sql } from 'drizzle-orm';
import { type Config, loadConfig, loadDotEnv } from '../../config.ts';
import { runCli } from '../../core/cli.ts';
import { openMigratedDatabase } from '../../core/open-database.ts';
import { queryRows } from '../../db/client.ts';

export const MIGRATE_USAGE = `Usage: npm run migrate   (node apps/auth/src/features/ops/migrate.cli.ts)

Applies the pending migrations to the database the settings name (DATABASE_URL, else the embedded
database in DATA_DIR), then exits: 0 when the database is up to date, 1 with a one-line reason
otherwise. Instances also migrate when they start; on PostgreSQL every migrator takes one advisory
lock, so this may run while instances start. With the embedded database, stop the service first
(it serves one process at a time).

Options:
  -h, --help   this text`;

async function appliedCount(config: Config): Promise<number> {
  const database = await openMigratedDatabase(config);
  try {
    const rows = await queryRows<{ n: number | string }>(
      database.db,
      sql`select count(*) as n from __drizzle_migrations`,
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await database.close();
  }
}

export async function runMigrate(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCli(MIGRATE_USAGE, argv, async (args) => {
    if (args.length > 0) {
      console.error(`Unknown option ${args[0]} (see --help)`);
      return 1;
    }
    const config = loadConfig(env);
    const n = await appliedCount(config);
    console.log(`Database up to date: ${n} migrations applied.`);
    return 0;
  });
}

if (import.meta.main) {
  loadDotEnv();
  process.exitCode = await runMigrate(process.argv.slice(2));
}
