#!/usr/bin/env node
// `npm start`: builds whatever is missing, then serves the site and the auth API from this one process.
// - Node older than 22.22: re-runs itself through scripts/ensure-node.sh, which fetches Node 24 from the
//   npm registry (the machines ship Node 20; the service runs TypeScript through Node's type stripping).
// - The site is built when its output is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const [major, minor] = process.versions.node.split('.').map(Number);

if (major < 22 || (major === 22 && minor < 22)) {
  console.error(`start: Node ${process.versions.node} is too old for this project; switching to Node 24.`);
  const result = spawnSync('bash', ['-c', 'source scripts/ensure-node.sh && exec node scripts/start.mjs'], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
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
  const build = spawnSync(npm[0], [...npm[1], 'run', 'build', '-w', 'apps/web'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    console.error('start: the site build failed; see the output above.');
    process.exit(1);
  }
  console.error(`start: site built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const { main } = await import(pathToFileURL(join(root, 'apps/auth/src/main.ts')).href);
await main();
