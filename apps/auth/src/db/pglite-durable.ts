import { fsyncSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * PGlite on disk that survives a power cut, not only a crash of the process.
 *
 * Out of the box PGlite never makes a write durable. It starts PostgreSQL with `-F` (fsync off), and
 * its Node filesystem (Emscripten's NODEFS) has no fsync operation, so even with fsync on, the
 * calls would do nothing. Emscripten's `fdatasync` does nothing either, which is PostgreSQL's
 * default way to flush the WAL. A committed write reaches the kernel's page cache at once, so it
 * survives the process being killed, but a power cut or kernel crash can lose it or corrupt the data
 * directory.
 *
 * Here the filesystem gets an fsync that calls the kernel's. PostgreSQL runs with fsync on and
 * flushes the WAL with `fsync`, so every commit reaches the disk before it is acknowledged (one
 * fsync per commit; hotQuery's group commit shares it), and checkpoints flush the data files.
 * Measured on the 2-core VM: 0.2–0.4 ms per flush on its disk, and a single-row insert went from
 * ~220 to ~380 µs. test/db/pglite-durable.test.ts checks that a commit reaches the new fsync, so an
 * upgrade of PGlite that bypasses it fails there.
 */
let syncs = 0;

/** fsync calls made for PGlite so far (for the test that proves commits reach the disk). */
export const pgliteFsyncCount = () => syncs;

class DurableNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const result = await super.init(...args);
    const opts = result.emscriptenOpts as { preRun?: Array<(mod: EmscriptenModule) => void> };
    opts.preRun = [
      ...(opts.preRun ?? []),
      (mod) => {
        const { NODEFS } = mod;
        NODEFS.stream_ops.fsync = (stream) => {
          syncs++;
          // Through NODEFS's own wrapper, so a failure (EIO, ENOSPC) reaches PostgreSQL as an errno
          // (it then stops rather than carry on unflushed) instead of a JavaScript exception.
          NODEFS.tryFSOperation(() => fsyncSync(stream.nfd));
        };
      },
    ];
    return result;
  }
}

type EmscriptenModule = {
  NODEFS: {
    stream_ops: { fsync?: (stream: { nfd: number }) => void };
    tryFSOperation<T>(operation: () => T): T;
  };
};

/** Opens (or creates) the PGlite database in `dir`, durable as above (plus `-c name=value` start parameters). */
export function openDurablePglite(dir: string, extraStartParams: string[] = []): Promise<PGlite> {
  return PGlite.create({
    fs: new DurableNodeFS(dir),
    startParams: [
      ...PGlite.defaultStartParams.filter((p) => p !== '-F'),
      '-c',
      'wal_sync_method=fsync',
      ...extraStartParams,
    ],
  });
}
