// Upgrading a database that holds data: each migration is applied to a database migrated up to the
// one before it, with rows in it, the way a deployed service meets a new release. On PGlite, and on
// a fresh PostgreSQL database when DATABASE_URL is set (as in CI's second run).
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase, queryRows } from '../../src/db/client.ts';
import { migrate, migrationsFolder } from '../../src/db/migrate.ts';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.ts';

/** A copy of the migrations folder that stops after the first `count` migrations. */
function migrationsUpTo(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'namaa-migrations-'));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalPath = join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

let database: Database | undefined;
let fresh: FreshDatabase | undefined;
const folders: string[] = [];
afterEach(async () => {
  await database?.close();
  await fresh?.drop();
  database = undefined;
  fresh = undefined;
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

/** A new database migrated up to the first `count` migrations (the release before the one tested). */
async function openMigratedUpTo(count: number): Promise<Database> {
  const url = process.env.DATABASE_URL;
  fresh = url ? await createFreshDatabase(url) : undefined;
  database = await openDatabase({ databaseUrl: fresh?.url, dataDir: 'memory://' });
  const before = migrationsUpTo(count);
  folders.push(before);
  await migrate(database, before);
  return database;
}

describe('0002 secure email change', () => {
  it('keeps email changes pending from before it completing with their one link', async () => {
    const db = await openMigratedUpTo(2);
    const pendingId = randomUUID();
    const settledId = randomUUID();
    await db.db.execute(sql`insert into users (id, email, email_change, email_change_sent_at)
      values (${pendingId}, 'pending@example.com', 'moving@example.com', now()),
             (${settledId}, 'settled@example.com', null, null)`);

    await migrate(db);

    const list = (
      await queryRows<{ id: string; status: number }>(
        db.db,
        sql`select id, email_change_confirm_status as status from users`,
      )
    ).map((r) => ({ id: r.id, status: Number(r.status) }));
    // A change mailed to the new address only needs just that confirmation (applied at 2)...
    expect(list).toContainEqual({ id: pendingId, status: 1 });
    // ...and an account with no change pending starts a future secure change from 0.
    expect(list).toContainEqual({ id: settledId, status: 0 });
    // Two migration runs on a fresh PGlite: seconds on an idle machine, over 30 s on a loaded one.
  }, 120_000);
});

describe('0015 rate-limit keys in byte order, the address before the network', () => {
  it('rewrites known networks and back-offs to the new order, keeps every other row, and sorts keys bytewise (collation C)', async () => {
    const db = await openMigratedUpTo(15);
    await db.db.execute(sql`insert into rate_limit_counters (key, window_start, count, last_hit_at) values
      ('known:signin:203.0.113.7:ann@example.com', timestamptz 'epoch', 1, now()),
      ('known:signin:2001:db8:0:1::/64:ann@example.com', timestamptz 'epoch', 1, now()),
      ('backoff:signin:198.51.100.2:bob@example.com', timestamptz 'epoch', 4, now()),
      ('backoff:mfa:4b1c2d3e-0000-4000-8000-000000000000', timestamptz 'epoch', 2, now()),
      ('signin:acct:ann@example.com', now(), 3, null),
      ('signin:ip:203.0.113.7', now(), 5, null)`);

    await migrate(db);

    const keys = (
      await queryRows<{ key: string; count: number }>(db.db, sql`select key, count from rate_limit_counters`)
    ).map((r) => `${r.key} ${Number(r.count)}`);
    expect(keys.sort()).toEqual(
      [
        'known:signin:ann@example.com:203.0.113.7 1',
        'known:signin:ann@example.com:2001:db8:0:1::/64 1',
        'backoff:signin:bob@example.com:198.51.100.2 4',
        'backoff:mfa:4b1c2d3e-0000-4000-8000-000000000000 2',
        'signin:acct:ann@example.com 3',
        'signin:ip:203.0.113.7 5',
      ].sort(),
    );
    // Byte order whatever the database's locale: an erasure's prefix ranges read the primary key.
    const [column] = await queryRows<{ collation: string }>(
      db.db,
      sql`select collation_name as collation from information_schema.columns
        where table_schema = ${db.namespace} and table_name = 'rate_limit_counters' and column_name = 'key'`,
    );
    expect(column?.collation).toBe('C');
  }, 120_000);
});
