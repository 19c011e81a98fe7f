// The embedded database on disk flushes every commit to the disk (db/pglite-durable.ts): PGlite alone
// never fsyncs, so without this a power cut could lose acknowledged sign-ups.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, expect, it } from 'vitest';
import { type Database, openDatabase, queryRows } from '../../src/db/client.ts';
import { pgliteFsyncCount } from '../../src/db/pglite-durable.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'namaa-durable-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const setting = async (database: Database, name: 'fsync' | 'wal_sync_method') =>
  (await queryRows<Record<string, string>>(database.db, sql.raw(`show ${name}`)))[0]?.[name];

// Its own time budget, not the suite's 30 s: the first open creates a durable database (initdb and
// every migration, flushed, in a child process: ~7 s on an idle 2-core machine, over 30 s beside CI's
// other suites), and the second opens it again.
it.skipIf(process.env.DATABASE_URL)(
  'flushes each commit to the disk, and only commits',
  { timeout: 150_000 },
  async () => {
    const database = await openDatabase({ dataDir });
    try {
      expect(await setting(database, 'fsync')).toBe('on');
      // PostgreSQL's default (fdatasync) does nothing under Emscripten; fsync reaches our flush.
      expect(await setting(database, 'wal_sync_method')).toBe('fsync');
      await database.db.execute(sql`create table durable_probe (id serial primary key, v text)`);

      let before = pgliteFsyncCount();
      await database.db.execute(sql`insert into durable_probe (v) values ('acknowledged')`);
      expect(pgliteFsyncCount()).toBeGreaterThan(before);

      before = pgliteFsyncCount();
      await queryRows(database.db, sql`select count(*) from durable_probe`);
      expect(pgliteFsyncCount()).toBe(before);
    } finally {
      await database.close();
    }

    // PGLITE_FSYNC=false: PGlite's own behaviour (no flush), and the same data.
    const relaxed = await openDatabase({ dataDir, fsync: false });
    try {
      expect(await setting(relaxed, 'fsync')).toBe('off');
      const before = pgliteFsyncCount();
      await relaxed.db.execute(sql`insert into durable_probe (v) values ('relaxed')`);
      expect(pgliteFsyncCount()).toBe(before);
      const rows = await queryRows<{ v: string }>(relaxed.db, sql`select v from durable_probe order by id`);
      expect(rows.map((r) => r.v)).toEqual(['acknowledged', 'relaxed']);
    } finally {
      await relaxed.close();
    }
  },
);
