// Moving in from Supabase (or a self-hosted GoTrue): copies users, identities and MFA factors from
// another project's `auth` schema into this service's database, keeping ids and password hashes.
// Usage text: IMPORT_USAGE below (`npm run import -w apps/auth -- --help`).
//
// The SOURCE is another database: a plain-SQL pg_dump file, or that project's live PostgreSQL URL.
// The TARGET is this service's own database (its .env: DATABASE_URL or DATA_DIR), as every command
// opens it. With the embedded database (PGlite, one process at a time) stop the service first: the
// data directory's lock refuses the command while it runs (exit 2).
import { existsSync } from 'node:fs';
import { type Config, loadConfig, loadDotEnv } from '../../config.ts';
import { runCli } from '../../core/cli.ts';
import { openMigratedDatabase } from '../../core/open-database.ts';
import type { ImportCounts } from '../../db/import.repo.ts';
import { importMapped } from './import.ts';
import { mapSource } from './map-rows.ts';
import { readDump, readLive, type SourceData } from './read-source.ts';

export const IMPORT_USAGE = `Usage: npm run import -w apps/auth -- <dump.sql | postgres://source> [--dry-run] [--json]
       (node apps/auth/src/features/supabase-import/import.cli.ts)

Copies users, identities and verified MFA factors (TOTP, phone, recovery codes) from a Supabase /
GoTrue \`auth\` schema into this service's database. Ids are kept (so tokens' \`sub\` and your own tables' references
stay valid), and so are bcrypt and argon2 password hashes: they verify at sign-in and are rehashed
to argon2id then. Sessions, refresh tokens and pending links are not moved: users sign in again.
A user whose id, email or phone is already here is skipped, never overwritten (re-running is safe).

  <dump.sql>          plain-SQL pg_dump in COPY format: pg_dump --schema=auth --data-only …,
                      or supabase db dump --data-only --use-copy
  <postgres://…>      the source project's database, read in one snapshot (read-only)
  --dry-run           read and check everything, write nothing
  --json              one JSON document on stdout (counts, skipped ids, warnings)
  -h, --help          this text

The target is this service's database (.env: DATABASE_URL or DATA_DIR). With the embedded database
stop the service first.`;

export async function runImport(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCli(IMPORT_USAGE, argv, async () => {
    const flags = new Set(argv.filter((a) => a.startsWith('--')));
    const unknown = [...flags].find((f) => !['--dry-run', '--json'].includes(f));
    const positional = argv.filter((a) => !a.startsWith('--'));
    if (unknown || positional.length !== 1) {
      console.error(
        unknown
          ? `Unknown option ${unknown} (see --help)`
          : 'Give one source: a dump file or a postgres:// URL (see --help)',
      );
      return 1;
    }
    const sourceArg = positional[0] as string;
    const live = /^postgres(ql)?:\/\//i.test(sourceArg);
    if (!live && !existsSync(sourceArg)) {
      console.error(`No such file: ${sourceArg}`);
      return 1;
    }
    const config: Config = loadConfig(env);
    if (live && config.DATABASE_URL && sameDatabase(sourceArg, config.DATABASE_URL)) {
      console.error("The source is this service's own database: give the project you are moving from.");
      return 1;
    }
    let source: SourceData;
    try {
      source = live ? await readLive(sourceArg) : await readDump(sourceArg);
    } catch (err) {
      // Never echo the URL: it may carry a password.
      console.error(
        `Cannot read the source ${live ? 'database' : 'dump'}: ${(err as Error).message?.slice(0, 300)}`,
      );
      return 1;
    }
    const mapped = mapSource(source);
    let totals: ImportCounts = { users: 0, skippedUsers: [], identities: 0, factors: 0, recoveryCodes: 0 };
    if (!flags.has('--dry-run')) {
      const database = await openMigratedDatabase(config);
      try {
        totals = await importMapped(database.db, mapped);
      } finally {
        await database.close();
      }
    }
    const report = {
      dryRun: flags.has('--dry-run'),
      read: {
        users: source.users.length,
        identities: source.identities.length,
        factors: source.factors.length,
        recoveryCodes: source.recoveryCodes.length,
      },
      imported: {
        users: totals.users,
        identities: totals.identities,
        factors: totals.factors,
        recoveryCodes: totals.recoveryCodes,
      },
      skippedUsers: totals.skippedUsers,
      warnings: mapped.warnings,
    };
    if (flags.has('--json')) console.log(JSON.stringify(report));
    else {
      console.log(
        `Read ${report.read.users} users, ${report.read.identities} identities, ${report.read.factors} factors, ${report.read.recoveryCodes} recovery codes.`,
      );
      if (report.dryRun)
        console.log(
          `Dry run: ${mapped.users.length} users, ${mapped.identities.length} identities, ${mapped.factors.length} factors, ${mapped.recoveryCodes.length} recovery codes would be imported.`,
        );
      else
        console.log(
          `Imported ${totals.users} users, ${totals.identities} identities, ${totals.factors} factors, ${totals.recoveryCodes} recovery codes.`,
        );
      if (totals.skippedUsers.length > 0)
        console.log(
          `Skipped ${totals.skippedUsers.length} users already here (same id, email or phone): ${totals.skippedUsers.slice(0, 20).join(', ')}${totals.skippedUsers.length > 20 ? ', …' : ''}`,
        );
      for (const w of mapped.warnings) console.log(`  ! ${w}`);
    }
    return 0;
  });
}

/** Whether two PostgreSQL URLs name the same database (host, port, name). */
function sameDatabase(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return (
      x.hostname === y.hostname && (x.port || '5432') === (y.port || '5432') && x.pathname === y.pathname
    );
  } catch {
    return false;
  }
}

if (import.meta.main) {
  loadDotEnv();
  process.exitCode = await runImport(process.argv.slice(2));
}
