// The account export's audit rows (db/account.repo.ts listUserAuditEvents): the rows the user acted
// in and the admin API's rows naming the user, newest first, at most `limit`, nobody else's. The
// statement is written as two steps for the planner (docs/sizing.md); this pins what it returns.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listUserAuditEvents } from '../../src/db/account.repo.ts';
import { type Database, openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { auditLogEntries } from '../../src/db/schema.ts';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.ts';

let database: Database;
let fresh: FreshDatabase | undefined;
beforeAll(async () => {
  fresh = process.env.DATABASE_URL ? await createFreshDatabase(process.env.DATABASE_URL) : undefined;
  database = await openDatabase({ databaseUrl: fresh?.url, dataDir: 'memory://' });
  await migrate(database);
});
afterAll(async () => {
  await database?.close();
  await fresh?.drop();
});

const me = randomUUID();
const other = randomUUID();
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute));

describe('listUserAuditEvents', () => {
  it("gives the user's own rows and the rows naming the user, newest first, within the limit", async () => {
    await database.db.insert(auditLogEntries).values([
      {
        id: randomUUID(),
        action: 'login',
        actorId: me,
        ipAddress: '203.0.113.1',
        payload: {},
        createdAt: at(1),
      },
      {
        id: randomUUID(),
        action: 'user_modified',
        actorId: other,
        ipAddress: null,
        payload: { user_id: me, traits: { provider: 'email' } },
        createdAt: at(3),
      },
      { id: randomUUID(), action: 'logout', actorId: me, ipAddress: null, payload: {}, createdAt: at(2) },
      // Somebody else's, also naming somebody else.
      { id: randomUUID(), action: 'login', actorId: other, ipAddress: null, payload: {}, createdAt: at(4) },
      {
        id: randomUUID(),
        action: 'user_deleted',
        actorId: other,
        ipAddress: null,
        payload: { user_id: other },
        createdAt: at(5),
      },
    ]);
    const rows = await listUserAuditEvents(database.db, me, 10);
    expect(rows.map((r) => r.action)).toEqual(['user_modified', 'logout', 'login']);
    const [named, , own] = rows;
    expect(named?.payload).toEqual({ user_id: me, traits: { provider: 'email' } });
    expect(named?.createdAt).toEqual(at(3));
    expect(own).toMatchObject({ actorId: me, ipAddress: '203.0.113.1', createdAt: at(1) });
    expect((await listUserAuditEvents(database.db, me, 2)).map((r) => r.action)).toEqual([
      'user_modified',
      'logout',
    ]);
    expect(await listUserAuditEvents(database.db, randomUUID(), 10)).toEqual([]);
  });
});
