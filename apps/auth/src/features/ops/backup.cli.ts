// Backup and restore of the embedded database (PGlite in DATA_DIR) as one gzip tarball, made by
// PGlite's own dumpDataDir and loaded by its loadDataDir (a consistent copy of the data directory,
// taken by the database itself rather than by copying files under it).
//
// A backup of a running service is taken by the service itself (online-backup.ts: this command
// signals it); with the service stopped this command opens the database. Restore needs the service
// stopped (the data directory's lock refuses it otherwise: one line, exit 2). PostgreSQL has its own
// tools (pg_dump/pg_restore, docs/production.md). A backup holds the signing keys and the service's
// secrets: it is written readable by its owner only (0600), and encrypted (AES-256-GCM,
// crypto/backup-seal.ts) when BACKUP_KEY is set.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { type Config, loadConfig, loadDotEnv } from '../../config.ts';
import { runCli } from '../../core/cli.ts';
import { openMigratedDatabase } from '../../core/open-database.ts';
import { StartupError } from '../../core/startup-error.ts';
import {
  BackupKeyError,
  backupKeyBytes,
  isSealed,
  openBackup,
  sealBackup,
} from '../../crypto/backup-seal.ts';
import { lockDataDir } from '../../db/data-dir-lock.ts';
import { BACKUP_REQUEST, backupSpool } from './online-backup.ts';

export const BACKUP_USAGE = `Usage: npm run backup [-- --out FILE]   (node apps/auth/src/features/ops/backup.cli.ts)

Writes the embedded database (DATA_DIR) to one gzip tarball, FILE (default
namaa-backup-<UTC time>.tar.gz in the current directory), readable by its owner only. While the
service runs, it asks the service (SIGUSR2) to take the copy; otherwise it opens the database
itself. With BACKUP_KEY set the file is encrypted (AES-256-GCM). For PostgreSQL use pg_dump.

The backup holds the signing keys and the service's secrets: encrypt it (BACKUP_KEY) and keep it private.

Options:
  --out FILE   where to write the tarball
  -h, --help   this text`;

export const RESTORE_USAGE = `Usage: npm run restore -- FILE   (node apps/auth/src/features/ops/backup.cli.ts --restore FILE)

Loads a tarball written by \`npm run backup\` into DATA_DIR, which must not hold a database yet
(move the old one away first), then applies any newer migrations. Stop the service first. An
encrypted backup needs the BACKUP_KEY it was written with.

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
    const key = config.BACKUP_KEY === undefined ? undefined : backupKeyBytes(config.BACKUP_KEY);
    const running = servicePid(config.DATA_DIR);
    const tarball = running ? await askService(config.DATA_DIR, running) : await dumpStopped(config);
    const bytes = key ? sealBackup(tarball, key) : tarball;
    writeFileSync(file, bytes, { mode: 0o600 });
    chmodSync(file, 0o600); // an existing file keeps its mode otherwise
    console.log(
      `Backup written: ${file} (${bytes.length} bytes${key ? ', encrypted with BACKUP_KEY' : ''}${running ? ', taken by the running service' : ''}). It holds the signing keys and secrets.`,
    );
    return 0;
  });
}

/** The pid of a live service holding DATA_DIR, from its lock file (data-dir-lock.ts). */
function servicePid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'namaa.lock'), 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** The running service takes the copy (online-backup.ts); waits up to 120 s for it. */
async function askService(dataDir: string, pid: number): Promise<Buffer> {
  const spooled = join(backupSpool(dataDir), `request-${process.pid}-${Date.now()}.tar.gz`);
  writeFileSync(join(dataDir, BACKUP_REQUEST), JSON.stringify({ out: spooled }), { mode: 0o600 });
  try {
    process.kill(pid, 'SIGUSR2');
  } catch (err) {
    throw new StartupError(
      `Cannot signal the service (pid ${pid}) to take the backup: ${(err as Error).message}`,
    );
  }
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (existsSync(spooled)) {
      const bytes = readFileSync(spooled);
      rmSync(spooled, { force: true });
      return bytes;
    }
    if (existsSync(`${spooled}.error`)) {
      const why = readFileSync(`${spooled}.error`, 'utf8');
      rmSync(`${spooled}.error`, { force: true });
      throw new StartupError(`The service (pid ${pid}) could not take the backup: ${why}`);
    }
    if (Date.now() > deadline)
      throw new StartupError(`The service (pid ${pid}) did not write the backup within 120 s (see its log)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** With the service stopped: open the database (taking its lock; migrating it) and dump it. */
async function dumpStopped(config: Config): Promise<Buffer> {
  const database = await openMigratedDatabase(config);
  try {
    const client = (database.db as unknown as { $client: PGlite }).$client;
    return Buffer.from(await (await client.dumpDataDir('gzip')).arrayBuffer());
  } finally {
    await database.close();
  }
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
      let bytes: Buffer = readFileSync(file);
      if (isSealed(bytes)) {
        if (config.BACKUP_KEY === undefined)
          throw new StartupError(`${file} is encrypted: set the BACKUP_KEY it was written with`);
        try {
          bytes = openBackup(bytes, backupKeyBytes(config.BACKUP_KEY));
        } catch (err) {
          throw err instanceof BackupKeyError ? new StartupError(`${file}: ${err.message}`) : err;
        }
      }
      const restored = await PGlite.create({ dataDir: target, loadDataDir: new Blob([bytes]) });
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
