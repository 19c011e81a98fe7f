// Issue #25, CLI papercuts: --help on every command (printed without touching any database), the
// audit reader named so it cannot be mistaken for `npm audit`, and keys:rotate on a PGlite data
// directory held by another process answering one clear line instead of a stack.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { npmCommand, repoRoot, runEntry, serviceEnv, tempDir } from '../../support/entry-process.ts';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
// Each test spawns real processes: on a loaded two-core machine a start alone can take 20 s or more.
vi.setConfig({ testTimeout: 120_000 });

const [npm, npmArgs] = npmCommand();

it('every command answers --help with its usage, exit 0, and opens no database', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const dataDir = join(dir.path, 'never-created');
  const env = serviceEnv(0, { DATA_DIR: dataDir });
  // -s: npm's own "> script" banner off, so stdout is the command's alone.
  const commands: Array<[string, string[], RegExp]> = [
    [npm, [...npmArgs, '-s', 'start', '--', '--help'], /^Usage: npm start/],
    [process.execPath, ['apps/auth/src/main.ts', '--help'], /^Usage: node apps\/auth\/src\/main.ts/],
    [npm, [...npmArgs, '-s', 'run', 'migrate', '--', '--help'], /^Usage: npm run migrate/],
    [npm, [...npmArgs, '-s', 'run', 'keys:rotate', '--', '--help'], /^Usage: npm run keys:rotate/],
    [npm, [...npmArgs, '-s', 'run', 'audit-log', '--', '--help'], /^Usage: npm run audit-log/],
    [
      npm,
      [...npmArgs, '-s', 'run', 'keys:rotate', '-w', 'apps/auth', '--', '-h'],
      /^Usage: npm run keys:rotate/,
    ],
    [npm, [...npmArgs, '-s', 'run', 'audit-log', '-w', 'apps/auth', '--', '-h'], /^Usage: npm run audit-log/],
    [npm, [...npmArgs, '-s', 'test', '--', '--help'], /^Usage: npm test/],
    [npm, [...npmArgs, '-s', 'run', 'docs:settings', '--', '--help'], /^Usage: npm run docs:settings/],
    [npm, [...npmArgs, '-s', 'run', 'backup', '--', '--help'], /^Usage: npm run backup/],
    [npm, [...npmArgs, '-s', 'run', 'restore', '--', '--help'], /^Usage: npm run restore/],
    [npm, [...npmArgs, '-s', 'run', 'admin', '--', '--help'], /^usage: npm run admin/],
    [process.execPath, ['scripts/screenshots.mjs', '--help'], /^Usage: node scripts\/screenshots.mjs/],
  ];
  const results = await Promise.all(commands.map(([cmd, args]) => runEntry(cmd, args, env)));
  results.forEach((r, i) => {
    const [, args, usage] = commands[i] as [string, string[], RegExp];
    expect({ args, status: r.status, stderr: r.stderr }).toEqual({ args, status: 0, stderr: '' });
    expect(r.stdout.trim(), args.join(' ')).toMatch(usage);
  });
  expect(existsSync(dataDir)).toBe(false);
}, 120_000);

it('the audit reader is `npm run audit-log`; `npm run audit` is gone (one typo from `npm audit`)', () => {
  for (const file of ['package.json', 'apps/auth/package.json']) {
    const scripts = JSON.parse(readFileSync(join(repoRoot, file), 'utf8')).scripts as Record<string, string>;
    expect(scripts.audit, file).toBeUndefined();
    expect(scripts['audit-log'], file).toMatch(/audit-log\.cli\.ts$/);
  }
});

it('keys:rotate on a PGlite data directory held by a running process: one line, exit 2, no stack', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  // The lock a running service holds: DATA_DIR/namaa.lock with its live pid (here this test's own
  // process, alive and not the CLI). Nothing answers on PORT, so the CLI's PORT check passes and it
  // is the lock that must stop it, as when the service listens on another port.
  mkdirSync(dir.path, { recursive: true });
  writeFileSync(join(dir.path, 'namaa.lock'), String(process.pid));
  const r = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'keys:rotate'],
    serviceEnv(1, { DATA_DIR: dir.path }),
  );
  expect(r.status).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(
      `^The data directory ${dir.path} is in use by another Namaa process \\(pid ${process.pid}\\)\\.`,
    ),
  );
  // The lock is left alone.
  expect(readFileSync(join(dir.path, 'namaa.lock'), 'utf8')).toBe(String(process.pid));
}, 60_000);

it('an unknown option is one line pointing at --help, exit 1', async () => {
  const r = await runEntry(npm, [...npmArgs, '-s', 'run', 'migrate', '--', '--bogus'], serviceEnv(0));
  expect(r.status).toBe(1);
  expect(r.stderr.trim()).toBe('Unknown option --bogus (see --help)');
}, 60_000);
