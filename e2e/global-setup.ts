import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const webDir = join(import.meta.dirname, '..', 'apps', 'web');
const builtIndex = join(webDir, 'build', 'client', 'index.html');

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'build' || entry === '.react-router' || entry === 'test')
      continue;
    newest = Math.max(newest, newestSource(join(path, entry)));
  }
  return newest;
}

/** Builds the site when its output is missing or older than its sources. */
export default function setup(): void {
  if (existsSync(builtIndex) && statSync(builtIndex).mtimeMs >= newestSource(webDir)) return;
  const result = spawnSync(
    process.execPath,
    [process.env.npm_execpath ?? 'npm', 'run', 'build', '-w', 'apps/web'],
    {
      cwd: join(webDir, '..', '..'),
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) throw new Error('e2e: building the site failed');
}
