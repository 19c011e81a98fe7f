// Online backup of the embedded database: PGlite serves one process, so a backup taken while the
// service runs must be taken by the service itself. `npm run backup` finds the service's pid in the
// data directory's lock, writes a request file and sends SIGUSR2; the service dumps its database
// (PGlite's dumpDataDir, which holds the query lock: a consistent copy between two statements,
// requests wait meanwhile) into DATA_DIR/backups and the command takes it from there (encrypting it
// with BACKUP_KEY when set). A signal, not an endpoint: only the service's own user (or root) can
// ask, and nothing about it is reachable over the network.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../../logger.ts';

export const BACKUP_REQUEST = 'backup.request';

/** Where the service writes requested backups: inside DATA_DIR (writable by it, private, mode 0700). */
export function backupSpool(dataDir: string): string {
  return join(dataDir, 'backups');
}

/** The handler main.ts runs on SIGUSR2 (embedded database only). */
export function onlineBackupResponder(opts: {
  dataDir: string;
  client: PGlite;
  logger: Logger;
}): () => Promise<void> {
  let running: Promise<void> | undefined;
  const take = async () => {
    const requestPath = join(opts.dataDir, BACKUP_REQUEST);
    let out: string;
    try {
      out = resolve(String((JSON.parse(readFileSync(requestPath, 'utf8')) as { out?: unknown }).out));
      rmSync(requestPath, { force: true });
    } catch {
      opts.logger.warn('SIGUSR2 without a backup request: ignored (npm run backup sends both)');
      return;
    }
    // Only into the spool: the request file is the service's own, but a path elsewhere is refused.
    if (dirname(out) !== backupSpool(opts.dataDir)) {
      opts.logger.warn('backup request outside DATA_DIR/backups: ignored');
      return;
    }
    const started = performance.now();
    try {
      const dump = await opts.client.dumpDataDir('gzip');
      writeFileSync(`${out}.part`, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
      renameSync(`${out}.part`, out);
      opts.logger.info(
        { bytes: dump.size, ms: Math.round(performance.now() - started) },
        'online backup written',
      );
    } catch (err) {
      writeFileSync(`${out}.error`, (err as Error).message, { mode: 0o600 });
      opts.logger.error({ err: (err as Error).message }, 'online backup failed');
    }
  };
  return () => {
    mkdirSync(backupSpool(opts.dataDir), { recursive: true, mode: 0o700 });
    chmodSync(backupSpool(opts.dataDir), 0o700);
    running = (running ?? Promise.resolve()).then(take);
    return running;
  };
}
