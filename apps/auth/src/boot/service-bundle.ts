// The service's built bundle (apps/auth/dist, `npm run build`): the same code as src/, bundled by
// apps/auth/scripts/build-service.ts into a few files, because loading ~1,900 modules one by one is
// most of a restart (README, "Footprint": resolving, reading and linking them took ~0.8 s of a
// 1.1–1.5 s restart on the 2-core VM; the bundle loads in ~0.35 s).
//
// main.ts runs the bundle only when it was built from exactly these sources: the build writes a
// fingerprint of every source file (path and contents), of the dependency set (package-lock.json,
// which `npm ci` installs exactly and `npm prune` leaves alone) and of the build script; at start the
// fingerprint is computed again (~20 ms) and anything else runs the sources. Paths enter it relative
// to the checkout, so a moved checkout keeps its bundle (whose own paths are relative too). So a
// `git pull`, an edit or an `npm ci` without a rebuild never runs stale code: it only starts more
// slowly, and says so.
// SERVICE_BUNDLE=off always runs the sources; SERVICE_BUNDLE=<dir> takes the bundle from <dir>, which
// must be inside the checkout (the bundle finds PGlite, argon2 and pino in its node_modules).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const authRoot = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = join(authRoot, '../..');
export const DEFAULT_BUNDLE_DIR = join(authRoot, 'dist');
export const BUNDLE_ENTRY = 'run-service.js';
export const FINGERPRINT_FILE = 'fingerprint.json';

export type BundleInputs = { sourceDir: string; lockFile: string; buildScript: string };
export const BUNDLE_INPUTS: BundleInputs = {
  sourceDir: join(authRoot, 'src'),
  lockFile: join(repoRoot, 'package-lock.json'),
  buildScript: join(authRoot, 'scripts/build-service.ts'),
};

/** SHA-256 over every file under the sources (sorted paths and contents), the lock file and the build script. */
export function sourceFingerprint(inputs: BundleInputs = BUNDLE_INPUTS): string {
  const hash = createHash('sha256');
  const files = readdirSync(inputs.sourceDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    hash.update(`${relative(inputs.sourceDir, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  for (const [name, file] of [
    ['lock file', inputs.lockFile],
    ['build script', inputs.buildScript],
  ] as const) {
    hash.update(`${name}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : 'missing');
  }
  return hash.digest('hex');
}

export type EntryChoice =
  | { kind: 'bundle'; url: string; dir: string; fingerprint: string }
  | { kind: 'source'; reason: 'off' | 'missing' | 'stale' | 'unreadable'; dir: string };

/** Which code main.ts runs: the bundle when it matches the sources, else the sources (and why). */
export function chooseEntry(
  env: NodeJS.ProcessEnv = process.env,
  inputs: BundleInputs = BUNDLE_INPUTS,
): EntryChoice {
  const setting = env.SERVICE_BUNDLE?.trim();
  const dir = setting && setting !== 'off' ? setting : DEFAULT_BUNDLE_DIR;
  if (setting === 'off') return { kind: 'source', reason: 'off', dir };
  const entry = join(dir, BUNDLE_ENTRY);
  const stamp = join(dir, FINGERPRINT_FILE);
  if (!existsSync(entry) || !existsSync(stamp)) return { kind: 'source', reason: 'missing', dir };
  let built: unknown;
  try {
    built = (JSON.parse(readFileSync(stamp, 'utf8')) as { fingerprint?: unknown }).fingerprint;
  } catch {
    return { kind: 'source', reason: 'unreadable', dir };
  }
  const fingerprint = sourceFingerprint(inputs);
  if (built !== fingerprint) return { kind: 'source', reason: 'stale', dir };
  return { kind: 'bundle', url: pathToFileURL(entry).href, dir, fingerprint };
}
