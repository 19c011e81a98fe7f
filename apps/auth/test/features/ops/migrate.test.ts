// Issue #25: instances started together on an empty PostgreSQL database raced on migrations (the
// second died with `relation "__drizzle_migrations" already exists`). Migrating now happens under an
// advisory lock, and `npm run migrate` is the explicit step for deploy pipelines.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrationsFolder } from '../../../src/db/migrate.ts';
import {
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
import { createFreshDatabase, postgresReachable } from '../../support/fresh-database.ts';

const PG_URL = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const hasPostgres = await postgresReachable(PG_URL);
const migrationCount = readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql')).length;

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
// Each test spawns real processes: on a loaded two-core machine a start alone can take 20 s or more.
vi.setConfig({ testTimeout: 120_000 });

async function appliedMigrations(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query('select count(*)::int as n from auth.__drizzle_migrations');
    return r.rows[0].n as number;
  } finally {
    await client.end();
  }
}

describe.skipIf(!hasPostgres)('migrations on PostgreSQL', () => {
  it('4 instances started at once on a fresh, empty database all come up healthy', async () => {
    const database = await createFreshDatabase(PG_URL);
    cleanups.push(() => database.drop());
    const ports = await Promise.all([1, 2, 3, 4].map(() => freePort()));
    const procs: EntryProcess[] = ports.map((port) =>
      spawnEntry(process.execPath, [MAIN], serviceEnv(port, { DATABASE_URL: database.url })),
    );
    for (const p of procs) cleanups.push(() => p.killGroup());
    await Promise.all(procs.map((p, i) => waitHealthy(p, ports[i] as number, 90_000)));
    expect(procs.map((p) => p.output())).not.toContainEqual(expect.stringMatching(/already exists|Failed/));
    // Each migration applied once, not once per instance.
    expect(await appliedMigrations(database.url)).toBe(migrationCount);
  }, 150_000);

  it('`npm run migrate` migrates an empty database, says so, and a second run has nothing to do', async () => {
    const database = await createFreshDatabase(PG_URL);
    cleanups.push(() => database.drop());
    const [npm, npmArgs] = npmCommand();
    const env = serviceEnv(0, { DATABASE_URL: database.url });
    const first = await runEntry(npm, [...npmArgs, 'run', '-s', 'migrate'], env, 60_000);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe(`Database up to date: ${migrationCount} migrations applied.`);
    expect(first.status).toBe(0);
    expect(await appliedMigrations(database.url)).toBe(migrationCount);
    const again = await runEntry(npm, [...npmArgs, 'run', '-s', 'migrate'], env, 60_000);
    expect(again.status).toBe(0);
    expect(await appliedMigrations(database.url)).toBe(migrationCount);
  }, 150_000);
});

it('`npm run migrate` on the embedded database (DATA_DIR)', async () => {
  const dir = tempDir();
  cleanups.push(dir.remove);
  const [npm, npmArgs] = npmCommand();
  const r = await runEntry(
    npm,
    [...npmArgs, 'run', '-s', 'migrate'],
    serviceEnv(0, { DATA_DIR: join(dir.path, 'd') }),
    // Creating and migrating an on-disk PGlite: over 30 s on the loaded two-core machine.
    90_000,
  );
  expect(r.stderr).toBe('');
  expect(r.stdout.trim()).toBe(`Database up to date: ${migrationCount} migrations applied.`);
  expect(r.status).toBe(0);
}, 120_000);
