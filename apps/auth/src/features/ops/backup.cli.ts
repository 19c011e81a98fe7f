// Backup and restore of the embedded database (PGlite in DATA_DIR) as one gzip tarball, made by
// PGlite's own dumpDataDir and loaded by its loadDataDir (a consistent copy of the data directory,
// taken by the database itself rather than by copying files under it).
//
// The embedded database serves one process, so both need the service stopped: the data directory's
// lock refuses them otherwise (one line, exit 2). PostgreSQL has its own tools (pg_dump/pg_restore,
// docs/production.md). A backup holds the signing keys and the service's secrets: it is written
// readable by its owner only (0600).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type Config, loadConfig, loadDotEnv } from '../../config.ts';
import { runCli } from '../../core/cli.ts';
import { openMigratedDatabase } from '../../core/open-database.ts';
import { StartupError } from '../../core/startup-error.ts';
import { lockDataDir } from '../../db/data-dir-lock.ts';

export const BACKUP_USAGE = `Usage: npm run backup [-- --out FILE]   (node apps/auth/src/features/ops/backup.cli.ts)

Writes the embedded database (DATA_DIR) to one gzip tarball, FILE (default
namaa-backup-<UTC time>.tar.gz in the current directory), readable by its owner only. Stop the
service first: the embedded database serves one process at a time. For PostgreSQL use pg_dump.

The backup holds the signing keys and the service's secrets: keep it encrypted and private.

Options:
  --out FILE   where to write the tarball
  -h, --help   this text`;

export const RESTORE_USAGE = `Usage: npm run restore -- FILE   (node apps/auth/src/features/ops/backup.cli.ts --restore FILE)

Loads a tarball written by \`npm run backup\` into DATA_DIR, which must not hold a database yet
(move the old one away first), then applies any newer migrations. Stop the service first.

Options:
  -h, --help   this text`;

function embeddedOnly(config: Config): void {
  if (config.DATABASE_URL)
    throw new StartupError(
      'DATABASE_URL is set: back up PostgreSQL with pg_dump and restore with pg_restore (docs/production.md)',
    );
}

/** Paths are relative to where the operator ran npm (npm runs scripts from the package's folder). */
function fromCaller(path: string): string {
  return isAbsolute(path) ? path : resolve(process.env.INIT_CWD ?? process.cwd(), path);
}

function defaultBackupName(now: Date): string {
  return `namaa-backup-${now.toISOString().replace(/[:.]/g, '-')}.tar.gz`;
}

export async function runBackup(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCli(BACKUP_USAGE, argv, async (args) => {
    let out: string | undefined;
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '--out' && args[i + 1]) out = args[++i];
      else {
        console.error(`Unknown option ${args[i]} (see --help)`);
        return 1;
      }
    }
    const config = loadConfig(env);
    embeddedOnly(config);
    if (!existsSync(join(config.DATA_DIR, 'pglite')))
      throw new StartupError(`DATA_DIR=${config.DATA_DIR} holds no database to back up`);
    const file = fromCaller(out ?? defaultBackupName(new Date()));
    // Opening takes the data directory's lock (a running service refuses us) and migrates, so the
    // backup is of the current schema.
    const database = await openMigratedDatabase(config);
    try {
      const client = (database.db as unknown as { $client: PGlite }).$client;
      const dump = await client.dumpDataDir('gzip');
      writeFileSync(file, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
      chmodSync(file, 0o600); // an existing file keeps its mode otherwise
      console.log(`Backup written: ${file} (${dump.size} bytes). It holds the signing keys and secrets.`);
      return 0;
    } finally {
      await database.close();
    }
  });
}

export async function runRestore(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCli(RESTORE_USAGE, argv, async (args) => {
    if (args.length !== 1 || args[0]?.startsWith('-')) {
      console.error('Name one backup file to restore (see --help)');
      return 1;
    }
    const file = fromCaller(args[0] as string);
    if (!existsSync(file)) throw new StartupError(`No such backup file: ${file}`);
    const config = loadConfig(env);
    embeddedOnly(config);
    const target = join(config.DATA_DIR, 'pglite');
    if (existsSync(target))
      throw new StartupError(
        `DATA_DIR=${config.DATA_DIR} already holds a database: move it away (or set DATA_DIR to an empty directory) and run this again`,
      );
    mkdirSync(config.DATA_DIR, { recursive: true });
    const unlock = lockDataDir(config.DATA_DIR);
    try {
      const restored = await PGlite.create({ dataDir: target, loadDataDir: new Blob([readFileSync(file)]) });
      await restored.close();
    } finally {
      unlock();
    }
    // Opened the way the service opens it (durable, locked): newer migrations apply now, not at the
    // first start, and a tarball that is not a database fails here rather than later.
    const database = await openMigratedDatabase(config);
    await database.close();
    console.log(`Restored ${file} into ${config.DATA_DIR}. Start the service.`);
    return 0;
  });
}

if (import.meta.main) {
  loadDotEnv();
  const argv = process.argv.slice(2);
  process.exitCode = argv[0] === '--restore' ? await runRestore(argv.slice(1)) : await runBackup(argv);
}
