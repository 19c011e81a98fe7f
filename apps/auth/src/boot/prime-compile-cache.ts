// Fills Node's compile cache for the service bundle in a short-lived child before the server loads
// it, when the cache does not hold it yet (the first start after an install or an upgrade).
//
// Why: a process that compiles the bundle from source keeps ~21 MiB more resident memory for the
// rest of its life than one that loads it from the compile cache (measured on PostgreSQL, idle 8 s
// after start: 121.3 MiB with an empty cache, 100.7 with a filled one, on a new database both
// times; README, "Footprint"): what compiling leaves behind stays with the process that did it. So
// the compiling happens in a child that exits, at ~0.4 s more on that one start; every start after
// it, and the server of this one, load from the cache.
//
// The child is `node <the same flags> main.ts --prime-compile-cache`: it imports the bundle (which
// runs only the modules' top-level code: no settings read, nothing opened), writes the cache and
// exits. A marker file in the cache
// directory, named after the bundle's fingerprint, the Node version and the flags (V8's cached code
// depends on all three), says it was done. Nothing happens when the compile cache is off
// (NODE_DISABLE_COMPILE_CACHE=1) or the sources run; any failure only costs the memory above.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { flushCompileCache, getCompileCacheDir } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntryChoice } from './service-bundle.ts';

export const PRIME_FLAG = '--prime-compile-cache';
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** The marker's path for this bundle, Node and flags; undefined when there is nothing to prime. */
export function primeMarker(entry: EntryChoice): string | undefined {
  const dir = getCompileCacheDir?.();
  if (!dir || entry.kind !== 'bundle') return undefined;
  const key = createHash('sha256')
    .update(`${entry.fingerprint}\0${process.version}\0${process.execArgv.join(' ')}`)
    .digest('hex')
    .slice(0, 32);
  return join(dir, `namaa-primed-${key}`);
}

/** Runs the priming child when the cache does not hold this bundle yet. Returns whether it did. */
export function primeCompileCache(entry: EntryChoice): boolean {
  const marker = primeMarker(entry);
  if (!marker || existsSync(marker)) return false;
  const child = spawnSync(process.execPath, [...process.execArgv, MAIN, PRIME_FLAG], {
    env: { ...process.env, SERVICE_BUNDLE: entry.dir },
    stdio: 'ignore',
    timeout: 60_000,
  });
  if (child.status !== 0) return false;
  try {
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  } catch {
    // A read-only cache directory: the next start primes again.
  }
  return true;
}

/** The child's part: compile the bundle by importing it, and write the cache. */
export async function primeInThisProcess(entry: EntryChoice): Promise<void> {
  if (entry.kind === 'bundle') await import(entry.url);
  flushCompileCache?.();
}
