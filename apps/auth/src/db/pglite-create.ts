import { execFile } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A new embedded database is created in a child process, then opened here like an existing one.
 *
 * Why: creating a PGlite database runs initdb inside PGlite's WebAssembly memory, which grows to
 * several hundred MiB and, being WebAssembly memory, is never given back to the system. A process
 * that created its database held ~360 MiB idle against ~220 MiB for the same process started on the
 * existing directory (README, "Footprint", issue #19). In a child the growth ends with the child.
 * Cost: one more Node start-up (~0.1 s) and one more open (~0.4 s), on the very first start only.
 *
 * The child builds the database in a sibling directory and this process renames it into place only
 * once the child has closed it cleanly, so an interrupted first start leaves no half-made database
 * where the next start would take it for a real one; leftovers of such a start are removed first.
 */
const CHILD = fileURLToPath(new URL('./pglite-create.child.ts', import.meta.url));
const CREATING = '.creating-';

/** True when `dir` holds no PGlite database yet (PostgreSQL writes PG_VERSION last of initdb's files). */
export const needsCreation = (dir: string) => !existsSync(join(dir, 'PG_VERSION'));

export async function createPgliteInChild(dir: string, opts: { durable: boolean }): Promise<void> {
  const parent = dirname(dir);
  for (const name of readdirSync(parent))
    if (name.startsWith(`${basename(dir)}${CREATING}`))
      rmSync(join(parent, name), { recursive: true, force: true });
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(
      `${dir} holds files but no database (no PG_VERSION): move it away, or point DATA_DIR at another directory`,
    );
  const staging = `${dir}${CREATING}${process.pid}`;
  try {
    await new Promise<void>((resolve, reject) => {
      // No execArgv: the parent may run under a test runner's or a debugger's flags; Node (>= 22.22)
      // runs the TypeScript child as it is.
      execFile(
        process.execPath,
        [CHILD, staging, opts.durable ? 'durable' : 'fast'],
        { timeout: 180_000, maxBuffer: 1 << 20 },
        (err, _stdout, stderr) => {
          if (!err) return resolve();
          const detail = stderr.trim().split('\n').slice(-3).join(' ');
          reject(new Error(`creating the embedded database in ${dir} failed: ${detail || err.message}`));
        },
      );
    });
    // Replaces `dir` only if it is missing or empty (rename(2) refuses a non-empty directory).
    renameSync(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  if (opts.durable) {
    // The rename is durable once the directory holding it is flushed.
    const fd = openSync(parent, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
