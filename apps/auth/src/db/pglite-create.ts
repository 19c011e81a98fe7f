import { execFile } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A new embedded database is created and migrated in a child process, then opened here like an
 * existing one.
 *
 * Why: creating a PGlite database runs initdb, and migrating it runs every migration, inside
 * WebAssembly memory that is never given back to the system. A process that created its database
 * held ~360 MiB idle against ~220 MiB for the same process restarted on the existing directory
 * (README, "Footprint", issue #19). In a child the growth ends with the child. Cost: one more Node
 * start-up and one more open (~0.5 s), on the very first start only.
 *
 * The child builds the database in a staging directory beside the real one, and this process
 * renames it into place only once the child has migrated and closed it cleanly, so an interrupted
 * first start leaves no half-made database where the next start would take it for a real one;
 * leftovers of such a start are removed first.
 */
const CHILD = fileURLToPath(new URL('./pglite-create.child.ts', import.meta.url));
const CREATING = '.creating-';

/** True when `dir` holds no PGlite database yet (initdb writes PG_VERSION). */
export const needsCreation = (dir: string) => !existsSync(join(dir, 'PG_VERSION'));

export type CreateOptions = { durable: boolean; namespace: string; sharedBuffers: string };

/** Creates and migrates the PGlite database `dir` (DATA_DIR/pglite) in a child process. */
export async function createPgliteInChild(dir: string, opts: CreateOptions): Promise<void> {
  const dataDir = dirname(dir);
  for (const name of readdirSync(dataDir))
    if (name.startsWith(`${basename(dir)}${CREATING}`))
      rmSync(join(dataDir, name), { recursive: true, force: true });
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(
      `${dir} holds files but no database (no PG_VERSION): move it away, or point DATA_DIR at another directory`,
    );
  // The child opens this as its DATA_DIR: the database lands in <staging>/pglite.
  const staging = `${dir}${CREATING}${process.pid}`;
  try {
    await new Promise<void>((resolve, reject) => {
      // No execArgv: the parent may run under a test runner's or a debugger's flags; Node (>= 22.22)
      // runs the TypeScript child as it is.
      execFile(
        process.execPath,
        [CHILD, staging, opts.durable ? 'durable' : 'fast', opts.namespace, opts.sharedBuffers],
        { timeout: 180_000, maxBuffer: 1 << 20 },
        (err, _stdout, stderr) => {
          if (!err) return resolve();
          // The child's uncaught error: Node prints the throwing source line, a caret, then
          // `SomeError: message` and the stack. Keep the message line.
          const lines = stderr.split('\n').map((line) => line.trim());
          const detail = lines.find((line) => /^[A-Za-z]*Error\b/.test(line)) ?? lines.find(Boolean);
          reject(new Error(`creating the embedded database in ${dir} failed: ${detail || err.message}`));
        },
      );
    });
    // Replaces `dir` only if it is missing or empty (rename(2) refuses a non-empty directory).
    renameSync(join(staging, basename(dir)), dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (opts.durable) {
    // The rename is durable once the directory holding it is flushed.
    const fd = openSync(dataDir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
