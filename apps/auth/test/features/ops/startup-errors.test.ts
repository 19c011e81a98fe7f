// Issue #25: every start-up failure of the real entry point is one line on stderr naming the setting
// and the cause, never a secret nor a stack, with a non-zero exit code.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../src/db/client.ts';
import { freePort, MAIN, runEntry, serviceEnv, tempDir } from '../../support/entry-process.ts';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
// Each test spawns real processes: on a loaded two-core machine a start alone can take 20 s or more.
vi.setConfig({ testTimeout: 120_000 });

async function start(env: Record<string, string>, timeoutMs = 45_000) {
  const r = await runEntry(process.execPath, [MAIN], serviceEnv(0, env), timeoutMs);
  return { ...r, lines: r.stderr.trim().split('\n') };
}

it('a DATA_DIR that cannot be created: one line naming DATA_DIR and the cause (not "cannot listen on port")', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  // A regular file where a parent directory should be. (The tests run as root, for whom no
  // directory is unwritable; EACCES takes the same path and adds a permissions hint.)
  writeFileSync(join(dir.path, 'file'), '');
  const dataDir = join(dir.path, 'file', 'data');
  const r = await start({ DATA_DIR: dataDir });
  expect(r.status).toBe(1);
  expect(r.lines).toHaveLength(1);
  expect(r.lines[0]).toBe(
    `Cannot use DATA_DIR=${dataDir} for the embedded database: ENOTDIR: not a directory, mkdir '${dataDir}'`,
  );
  expect(r.stderr).not.toMatch(/listen|\n\s+at /);
});

it('an SMTP_URL without a scheme: one line naming SMTP_URL, the password never printed', async () => {
  const r = await start({ SMTP_URL: 'mailer:hunter2-secret@mail.example.com:587' });
  expect(r.status).toBe(1);
  expect(r.lines).toEqual([
    'Invalid configuration: SMTP_URL: must be smtp://user:password@host:port or smtps://… (the value is not shown: it may hold a password)',
  ]);
  expect(r.stderr + r.stdout).not.toContain('hunter2');
});

it('an unreachable database: one line naming DATABASE_URL with the password redacted, and the cause', async () => {
  const port = await freePort(); // nothing listens there
  const r = await start({ DATABASE_URL: `postgres://namaa:hunter2-secret@127.0.0.1:${port}/namaa` });
  expect(r.status).toBe(1);
  expect(r.lines).toEqual([
    `Cannot use the database at DATABASE_URL=postgres://namaa:***@127.0.0.1:${port}/namaa: connect ECONNREFUSED 127.0.0.1:${port}`,
  ]);
  expect(r.stderr + r.stdout).not.toContain('hunter2');
});

it('a database that refuses the login: the server says why, in one line, without the password', async () => {
  // A fake PostgreSQL that answers every start-up with an authentication error (SQLSTATE 28P01).
  const server = createServer((socket) => {
    socket.once('data', () => {
      const fields = Buffer.from('SFATAL\0C28P01\0Mpassword authentication failed for user "namaa"\0\0');
      const header = Buffer.alloc(5);
      header.write('E', 0);
      header.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([header, fields]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as { port: number };
  const r = await start({
    DATABASE_URL: `postgres://namaa:hunter2-secret@127.0.0.1:${port}/namaa?sslmode=disable`,
  });
  expect(r.status).toBe(1);
  expect(r.lines).toEqual([
    `Cannot use the database at DATABASE_URL=postgres://namaa:***@127.0.0.1:${port}/namaa: password authentication failed for user "namaa"`,
  ]);
  expect(r.stderr + r.stdout).not.toContain('hunter2');
});

it('a port already in use: one line naming PORT', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
  const { port } = blocker.address() as { port: number };
  const r = await runEntry(process.execPath, [MAIN], serviceEnv(port, { DATA_DIR: dir.path }), 45_000);
  expect(r.status).toBe(1);
  expect(r.stderr.trim()).toBe(
    `Cannot listen on PORT=${port} (HOST=127.0.0.1): already in use: set PORT to another port`,
  );
});

it('a DB_NAMESPACE that is not a schema name: one line naming DB_NAMESPACE, exit 1, nothing created', async () => {
  const r = await start({ DATA_DIR: '/nonexistent-never-created', DB_NAMESPACE: 'Auth; drop schema public' });
  expect(r.status).toBe(1);
  expect(r.lines).toEqual([
    'Invalid configuration: DB_NAMESPACE: "Auth; drop schema public" is not a schema name (lower-case letters, digits and _, not starting with a digit, at most 63)',
  ]);
});

it("a DB_NAMESPACE whose users table is another service's (e.g. GoTrue's auth.users): one line, exit 1", async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  // An embedded database holding a foreign `elsewhere.users` (the service's own tables, created with
  // the directory, are in another schema).
  const foreign = await openDatabase({ dataDir: dir.path, namespace: 'ours', fsync: false });
  await foreign.db.execute(sql`create schema elsewhere`);
  await foreign.db.execute(sql`create table elsewhere.users (id uuid primary key, instance_id uuid)`);
  await foreign.close();
  // Opening an on-disk database: over 45 s on the loaded two-core machine.
  const r = await start({ DATA_DIR: dir.path, DB_NAMESPACE: 'elsewhere' }, 100_000);
  expect(r.status).toBe(1);
  expect(r.lines).toEqual([
    `Cannot use DATA_DIR=${dir.path} for the embedded database: schema elsewhere already holds a users table this service did not create (another auth service's?): set DB_NAMESPACE to a schema of its own`,
  ]);
}, 180_000);
