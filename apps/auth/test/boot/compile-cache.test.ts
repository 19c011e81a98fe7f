// main.ts switches Node's compile cache on before it loads the service: after one run of the
// entry (`--help` loads the whole module graph), the default cache directory (in the temporary
// directory, TMPDIR here; NODE_COMPILE_CACHE is unset, so only main.ts can have enabled it) holds
// the compiled modules; NODE_DISABLE_COMPILE_CACHE=1 leaves it empty. From the sources
// (SERVICE_BUNDLE=off): the built bundle, when there is one, is a few files, not hundreds.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function runEntry(env: Record<string, string>): string {
  const tmp = mkdtempSync(join(tmpdir(), 'namaa-compile-cache-'));
  dirs.push(tmp);
  const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...rest } = process.env;
  const run = spawnSync(process.execPath, [entry, '--help'], {
    env: { ...rest, TMPDIR: tmp, SERVICE_BUNDLE: 'off', ...env },
    encoding: 'utf8',
  });
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^Usage: node apps\/auth\/src\/main.ts/);
  return join(tmp, 'node-compile-cache');
}

/** Every file under `dir`, recursively. */
function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
}

it('fills the compile cache on a first run, and not when switched off', () => {
  // Hundreds of modules: our sources and their dependencies.
  expect(filesIn(runEntry({})).length).toBeGreaterThan(100);
  expect(filesIn(runEntry({ NODE_DISABLE_COMPILE_CACHE: '1' }))).toEqual([]);
}, 120_000);
