#!/usr/bin/env node
// `npm start`: builds whatever is missing, then serves the site and the auth API from this one process.
// - Node older than 22.22: re-runs itself through scripts/ensure-node.sh, which fetches Node 24 from the
//   npm registry (the machines ship Node 20; the service runs TypeScript through Node's type stripping).
// - The site is built when its output is missing or older than its sources (only for the default
//   SITE_DIR: a SITE_DIR set elsewhere is the operator's own build); the service's bundle
//   (apps/auth/dist) when missing or built from other sources (SERVICE_BUNDLE set: left alone).
// - Memory: package.json runs it as the systemd unit and the Docker image run the service, with
//   MALLOC_ARENA_MAX=2 (unless set) and `node --max-semi-space-size=4` (README, "Footprint": V8's
//   default young generation grows the resident memory under load by tens of MiB for nothing).
// Signals: package.json runs this as `exec node … scripts/start.mjs`, so npm's shell is replaced and
// npm's SIGTERM/SIGINT reach this process; the server runs in it (main.ts drains and exits 0). While a
// child runs (the Node 24 re-run, the site build), the signal is passed on to it and we exit with it,
// so no child is ever left behind holding the port.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const [major, minor] = process.versions.node.split('.').map(Number);

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: npm start   (or: node scripts/start.mjs)

Builds the site when its output is missing or stale, then serves the site and the auth API
(apps/auth/src/main.ts) in this process. SIGTERM or SIGINT: requests in flight get 8 s, then exit 0.
Production entry point without the build step: node apps/auth/src/main.ts (see docs/production.md).
Settings come from the environment and .env (README, "Configuration"). SKIP_SITE_BUILD=true skips
the staleness check (a missing build is still built). The service's bundle (apps/auth/dist) is
rebuilt when missing or stale; SERVICE_BUNDLE=off runs the sources instead.`);
  process.exit(0);
}

/**
 * Runs a child with our stdio, passing SIGTERM/SIGINT on to it while it runs; resolves with its exit
 * status (a child killed by a signal counts as 128 + signal number, as a shell reports it).
 */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    const forward = (signal) => child.kill(signal);
    process.on('SIGTERM', forward);
    process.on('SIGINT', forward);
    child.once('error', (err) => {
      console.error(`start: cannot run ${command}: ${err.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      process.off('SIGTERM', forward);
      process.off('SIGINT', forward);
      resolve(code ?? 128 + (signal === 'SIGINT' ? 2 : 15));
    });
  });
}

if (major < 22 || (major === 22 && minor < 22)) {
  console.error(`start: Node ${process.versions.node} is too old for this project; switching to Node 24.`);
  process.exit(
    await run('bash', [
      '-c',
      'source scripts/ensure-node.sh && exec node --max-semi-space-size=4 scripts/start.mjs',
    ]),
  );
}

const webDir = join(root, 'apps/web');
const builtIndex = join(webDir, 'build/client/index.html');

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'build' || entry === '.react-router') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function siteNeedsBuild() {
  const siteDir = process.env.SITE_DIR;
  if (siteDir && resolve(root, siteDir) !== dirname(builtIndex)) return undefined;
  if (!existsSync(builtIndex)) return 'the site has not been built yet';
  if (process.env.SKIP_SITE_BUILD === 'true') return undefined;
  if (newestMtime(webDir) > statSync(builtIndex).mtimeMs)
    return 'the site sources changed since the last build';
  return undefined;
}

const reason = siteNeedsBuild();
if (reason) {
  console.error(`start: building the site (${reason})…`);
  const started = Date.now();
  // Under `npm start`, npm_execpath is the npm that launched us; otherwise use the npm on PATH.
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const status = await run(npm[0], [...npm[1], 'run', 'build', '-w', 'apps/web']);
  if (status !== 0) {
    // 128 + n: stopped by a signal we passed on, not a failed build.
    if (status < 128) console.error('start: the site build failed; see the output above.');
    process.exit(status < 128 ? 1 : status);
  }
  console.error(`start: site built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// The service's bundle (apps/auth/src/boot/service-bundle.ts): rebuilt when missing or built from
// other sources, in about a second. If it cannot be built, main.ts runs the sources (slower start).
const { chooseEntry } = await import(pathToFileURL(join(root, 'apps/auth/src/boot/service-bundle.ts')).href);
let entry = chooseEntry();
if (entry.kind === 'source' && entry.reason !== 'off' && !process.env.SERVICE_BUNDLE) {
  const status = await run(process.execPath, [join(root, 'apps/auth/scripts/build-service.ts')]);
  if (status >= 128) process.exit(status);
  if (status !== 0) console.error('start: the service bundle could not be built; running the sources.');
  entry = chooseEntry();
}

const { main } = await import(pathToFileURL(join(root, 'apps/auth/src/main.ts')).href);
await main(undefined, entry);
