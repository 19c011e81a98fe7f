// `npm run build -w apps/web`: a clean, race-free build of the static site.
//  - Clean: React Router builds into a fresh temporary folder (`.build-tmp-<pid>`), post-build runs
//    there, and only then does the folder replace `build/` (rename), so no stale file from an earlier
//    build can ever ship and a half-written build is never visible under `build/`.
//  - Race-free: one build at a time per checkout, through an exclusive lock directory (`mkdir` is
//    atomic). A lock left by a dead process (or older than 10 minutes) is taken over.
//  - `--if-stale`: after taking the lock, skip the build when `build/` is newer than every source
//    (what the e2e global setup uses: parallel test runs then build once, never concurrently).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export const webDir = join(import.meta.dirname, '..');
export const buildDir = join(webDir, 'build');
const lockDir = join(webDir, '.build.lock');
const staleLockMs = 10 * 60_000;
const ignored = new Set(['node_modules', 'build', '.react-router', 'test']);

/** Newest modification time of the site's sources (not its outputs, locks or temp folders). */
export function newestSourceMtime(path = webDir): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A folder's own mtime counts (a deleted source changes it), except apps/web itself: swapping
  // build/ in and removing the lock change it on every build.
  let newest = path === webDir ? 0 : stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (ignored.has(entry) || entry.startsWith('.build')) continue;
    newest = Math.max(newest, newestSourceMtime(join(path, entry)));
  }
  return newest;
}

export function buildIsFresh(): boolean {
  const index = join(buildDir, 'client', 'index.html');
  return existsSync(index) && statSync(index).mtimeMs >= newestSourceMtime();
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function lockHolderAlive(): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    if (Date.now() - statSync(lockDir).mtimeMs > staleLockMs) return false;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // No pid file yet (the holder is between mkdir and write): treat as alive unless old.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return existsSync(lockDir) && Date.now() - statSync(lockDir).mtimeMs < 5_000;
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function acquireLock(): void {
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!lockHolderAlive()) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announced) console.error('build: another build of the site is running; waiting for it…');
    announced = true;
    sleep(250);
  }
}

function run(command: string, args: string[], env: Record<string, string>): void {
  const result = spawnSync(command, args, { cwd: webDir, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0)
    throw new Error(`build: ${[command, ...args].join(' ')} failed (${result.status})`);
}

export function buildSite({ ifStale = false } = {}): 'built' | 'fresh' {
  acquireLock();
  const tmpDir = join(webDir, `.build-tmp-${process.pid}`);
  const oldDir = join(webDir, `.build-old-${process.pid}`);
  try {
    if (ifStale && buildIsFresh()) return 'fresh';
    rmSync(tmpDir, { recursive: true, force: true });
    // Always a production build, whoever runs it: under Vitest (the e2e global setup) NODE_ENV is
    // `test`, which would otherwise give React's development build.
    const env = { WEB_BUILD_DIR: tmpDir, NODE_ENV: 'production' };
    const reactRouter = [webDir, join(webDir, '..', '..')]
      .map((dir) => join(dir, 'node_modules', '.bin', 'react-router'))
      .find((bin) => existsSync(bin));
    if (!reactRouter) throw new Error('build: react-router CLI not found (run npm ci)');
    run(reactRouter, ['build'], env);
    run(process.execPath, [join(webDir, 'scripts', 'post-build.ts')], env);
    if (existsSync(buildDir)) renameSync(buildDir, oldDir);
    renameSync(tmpDir, buildDir);
    return 'built';
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
    rmSync(oldDir, { recursive: true, force: true });
    rmSync(lockDir, { recursive: true, force: true });
    // The swap and the lock changed apps/web's own mtime: stamp the output last, so freshness checks
    // that count that folder (scripts/start.mjs) see the build as newer than its sources.
    const index = join(buildDir, 'client', 'index.html');
    if (existsSync(index)) utimesSync(index, new Date(), new Date());
  }
}

if (import.meta.main) {
  const outcome = buildSite({ ifStale: process.argv.includes('--if-stale') });
  if (outcome === 'fresh') console.error('build: the site is up to date');
}
