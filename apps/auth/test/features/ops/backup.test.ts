// Issue #25: `npm run backup` / `npm run restore` for the embedded database. A user signed up on one
// data directory signs in on the copy restored into another (same password hash, same signing keys:
// a token issued before the backup still verifies), the tarball is private (0600), a restore refuses
// a target that already has a database. While the service runs, the backup is taken by the service
// itself (SIGUSR2), under sign-up load, and encrypted with BACKUP_KEY when set.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import {
  ANON_KEY,
  type EntryProcess,
  freePort,
  MAIN,
  npmCommand,
  runEntry,
  serviceEnv,
  spawnEntry,
  tempDir,
  waitHealthy,
} from '../../support/entry-process.ts';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
// Each test spawns real processes: on a loaded two-core machine a start alone can take 20 s or more.
vi.setConfig({ testTimeout: 300_000 });
const [npm, npmArgs] = npmCommand();

async function service(
  dataDir: string,
): Promise<{ proc: EntryProcess; api: (path: string, init?: RequestInit) => Promise<Response> }> {
  const port = await freePort();
  const proc = spawnEntry(process.execPath, [MAIN], serviceEnv(port, { DATA_DIR: dataDir }));
  cleanups.push(() => proc.killGroup());
  // A fresh embedded database migrates on its first start: over a minute at load average 30.
  await waitHealthy(proc, port, 180_000);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${port}/auth/v1${path}`, {
      ...init,
      headers: { apikey: ANON_KEY, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  return { proc, api };
}

const signIn = (api: (path: string, init?: RequestInit) => Promise<Response>) =>
  api('/token?grant_type=password', {
    method: 'POST',
    body: JSON.stringify({ email: 'kept@example.com', password: 'correct horse battery' }),
  });

it('backup of a stopped service, restored into another DATA_DIR: the account signs in on the copy', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const original = join(dir.path, 'original');
  const copy = join(dir.path, 'copy');
  const tarball = join(dir.path, 'namaa.tar.gz');

  const first = await service(original);
  const signUp = await first.api('/signup', {
    method: 'POST',
    body: JSON.stringify({ email: 'kept@example.com', password: 'correct horse battery' }),
  });
  expect(signUp.status).toBe(200);
  const token = ((await signUp.json()) as { access_token: string }).access_token;

  first.proc.child.kill('SIGTERM');
  expect((await first.proc.exited).code).toBe(0);

  const backup = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'backup', '--', '--out', tarball],
    serviceEnv(0, { DATA_DIR: original }),
    60_000,
  );
  expect(backup.stderr).toBe('');
  expect(backup.stdout).toMatch(
    /^Backup written: .*namaa\.tar\.gz \(\d+ bytes\)\. It holds the signing keys and secrets\./,
  );
  expect(backup.status).toBe(0);
  expect(statSync(tarball).mode & 0o777).toBe(0o600);

  const restore = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'restore', '--', tarball],
    serviceEnv(0, { DATA_DIR: copy }),
    60_000,
  );
  expect(restore.stderr).toBe('');
  expect(restore.status).toBe(0);
  // A second restore over it is refused: a restore never overwrites a database.
  const again = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'restore', '--', tarball],
    serviceEnv(0, { DATA_DIR: copy }),
    60_000,
  );
  expect(again.status).toBe(1);
  expect(again.stderr.trim()).toMatch(/already holds a database/);

  const restored = await service(copy);
  expect((await signIn(restored.api)).status).toBe(200);
  // The signing keys came along: a token from before the backup is still accepted on the copy.
  const user = await restored.api('/user', { headers: { authorization: `Bearer ${token}` } });
  expect(user.status).toBe(200);
  expect(((await user.json()) as { email: string }).email).toBe('kept@example.com');
}, 600_000);

it('refuses with PostgreSQL (pg_dump is the tool there) and answers --help', async () => {
  const r = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'backup'],
    serviceEnv(0, { DATABASE_URL: 'postgres://x@127.0.0.1:1/x' }),
  );
  expect(r.status).toBe(1);
  expect(r.stderr.trim()).toMatch(/^DATABASE_URL is set: back up PostgreSQL with pg_dump/);
  const help = await runEntry(npm, [...npmArgs, '-s', 'run', 'restore', '--', '--help'], serviceEnv(0));
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^Usage: npm run restore/);
}, 60_000);

it('online: a backup of the running service under sign-up load, encrypted, restored: the account signs in on the copy', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const original = join(dir.path, 'original');
  const copy = join(dir.path, 'copy');
  const file = join(dir.path, 'namaa.tar.gz.enc');
  const BACKUP_KEY = 'ab'.repeat(32);

  const first = await service(original);
  const kept = await first.api('/signup', {
    method: 'POST',
    body: JSON.stringify({ email: 'kept@example.com', password: 'correct horse battery' }),
  });
  expect(kept.status).toBe(200);

  // Sign-ups keep arriving while the backup is taken.
  let loading = true;
  const statuses: number[] = [];
  const loadLoop = async (n: number) => {
    for (let i = 0; loading; i++) {
      const res = await first.api('/signup', {
        method: 'POST',
        body: JSON.stringify({ email: `load-${n}-${i}@example.com`, password: 'correct horse battery' }),
      });
      statuses.push(res.status);
    }
  };
  const load = Promise.all([loadLoop(1), loadLoop(2)]);
  while (statuses.length < 2) await new Promise((r) => setTimeout(r, 50));

  const backup = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'backup', '--', '--out', file],
    serviceEnv(0, { DATA_DIR: original, BACKUP_KEY }),
    120_000,
  );
  const during = statuses.length;
  while (statuses.length < during + 2) await new Promise((r) => setTimeout(r, 50));
  loading = false;
  await load;
  expect(backup.stderr).toBe('');
  expect(backup.stdout).toMatch(/encrypted with BACKUP_KEY, taken by the running service\)/);
  expect(backup.status).toBe(0);
  expect(statuses.every((s) => s === 200)).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 8).toString()).toBe('NAMAABK1');
  expect(bytes.includes(Buffer.from('kept@example.com'))).toBe(false);

  // Without the key (or with another one) an encrypted backup is refused in one line.
  const noKey = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'restore', '--', file],
    serviceEnv(0, { DATA_DIR: copy }),
    60_000,
  );
  expect(noKey.status).toBe(1);
  expect(noKey.stderr.trim()).toMatch(/is encrypted: set the BACKUP_KEY it was written with$/);
  const wrongKey = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'restore', '--', file],
    serviceEnv(0, { DATA_DIR: copy, BACKUP_KEY: 'cd'.repeat(32) }),
    60_000,
  );
  expect(wrongKey.status).toBe(1);
  expect(wrongKey.stderr.trim()).toMatch(/does not open with this BACKUP_KEY/);

  const restore = await runEntry(
    npm,
    [...npmArgs, '-s', 'run', 'restore', '--', file],
    serviceEnv(0, { DATA_DIR: copy, BACKUP_KEY }),
    60_000,
  );
  expect(restore.stderr).toBe('');
  expect(restore.status).toBe(0);
  first.proc.child.kill('SIGTERM');
  await first.proc.exited;
  const restored = await service(copy);
  expect((await signIn(restored.api)).status).toBe(200);
}, 600_000);
