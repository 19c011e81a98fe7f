import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is an embedded, single-process database: two processes writing one data directory would
 * corrupt it. The first process takes DATA_DIR/namaa.lock (its pid, created exclusively); a second
 * one is refused with a clear message. A lock left by a killed process (its pid is gone) is taken
 * over, so a crash never blocks the next start.
 */
export function lockDataDir(dir: string): () => void {
  const path = join(dir, 'namaa.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new DataDirLockedError(
          `The data directory ${dir} is in use by another Namaa process (pid ${pid}). ` +
            'The embedded database (PGlite) serves one process only: stop the other process, give this one ' +
            'its own DATA_DIR, or use PostgreSQL (DATABASE_URL) to run several instances.',
        );
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dir}`);
}
