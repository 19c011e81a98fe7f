// The embedded database's buffer cache is a setting (PGLITE_SHARED_BUFFERS, 16MB by default): PGlite's
// own 128MB would stay in the process's WebAssembly memory for good (README, "Footprint").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type Database, databaseOptions, openDatabase, queryRows } from '../../src/db/client.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'namaa-buffers-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sharedBuffers = async (database: Database) =>
  (await queryRows<{ shared_buffers: string }>(database.db, sql`show shared_buffers`))[0]?.shared_buffers;

describe.skipIf(process.env.DATABASE_URL)('PGlite shared_buffers', () => {
  // Creating a database (initdb, then the migrations) twice: half a minute on a loaded CI machine.
  it('is 16MB by default, on disk (durable) and in memory', { timeout: 120_000 }, async () => {
    const options = databaseOptions(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir }));
    expect(options.sharedBuffers).toBe('16MB');
    for (const opened of [await openDatabase(options), await openDatabase({ dataDir: 'memory://' })]) {
      try {
        expect(await sharedBuffers(opened)).toBe('16MB');
      } finally {
        await opened.close();
      }
    }
  });

  it('takes PGLITE_SHARED_BUFFERS, also without fsync', { timeout: 120_000 }, async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      PGLITE_SHARED_BUFFERS: '8MB',
      PGLITE_FSYNC: 'false',
    });
    const database = await openDatabase(databaseOptions(config));
    try {
      expect(await sharedBuffers(database)).toBe('8MB');
    } finally {
      await database.close();
    }
  });

  it('refuses a value PostgreSQL would not take, naming the setting', () => {
    for (const bad of ['16', '16mb', '0MB', '-1MB', '16MB; drop table users', '1TB'])
      expect(() => loadConfig({ NODE_ENV: 'test', PGLITE_SHARED_BUFFERS: bad })).toThrow(
        /PGLITE_SHARED_BUFFERS/,
      );
  });
});
