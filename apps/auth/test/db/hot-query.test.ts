// The hot-statement runner (src/db/hot-query.ts): statements issued together are committed together
// (group commit), yet every caller gets its own rows or its own error. On a real PGlite, and on a
// fresh PostgreSQL database when DATABASE_URL is set (as in CI's second run).
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Db, sqlState } from '../../src/db/client.ts';
import { hotQuery } from '../../src/db/hot-query.ts';
import { createFreshDatabase } from '../support/fresh-database.ts';

type Harness = {
  db: Db;
  /** Trips to the database that carried statements (PGlite exec calls, pooled connection checkouts). */
  trips(): number;
  rows<T>(sql: string): Promise<T[]>;
  /** PGlite only: closes the database under the runner. */
  kill?(): Promise<void>;
  /** PostgreSQL only: holds a row lock from another connection until the returned release(). */
  lockItem?(id: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
};

const CREATE = 'create table items (id int primary key, label text not null)';

async function pgliteHarness(): Promise<Harness> {
  const client = await PGlite.create();
  await client.exec(CREATE);
  let trips = 0;
  const exec = client.exec.bind(client);
  client.exec = (query: string, ...rest) => {
    trips++;
    return exec(query, ...rest);
  };
  return {
    db: drizzlePglite(client) as unknown as Db,
    trips: () => trips,
    rows: async <T>(sql: string) => (await client.query<T>(sql)).rows,
    kill: () => client.close(),
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}

async function postgresHarness(url: string): Promise<Harness> {
  const database = await createFreshDatabase(url);
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // As the service's own pool does (db/client.ts): a connection the server ends (here the forced
  // drop of the database at teardown, a pool client still ending) emits 'error' on its client;
  // without a listener that is an unhandled error of the run. The tests see failures on queries.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  await pool.query(CREATE);
  let trips = 0;
  pool.on('acquire', () => trips++);
  return {
    db: drizzlePg(pool) as unknown as Db,
    trips: () => trips,
    rows: async <T>(sql: string) => (await pool.query(sql)).rows as T[],
    lockItem: async (id) => {
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      await other.query('begin');
      await other.query('select 1 from items where id = $1 for update', [id]);
      return async () => {
        await other.query('commit');
        await other.end();
      };
    },
    close: async () => {
      await pool.end();
      await database.drop();
    },
  };
}

const engines: Array<[string, () => Promise<Harness>]> = [['PGlite', pgliteHarness]];
if (process.env.DATABASE_URL) {
  const url = process.env.DATABASE_URL;
  engines.push(['PostgreSQL', () => postgresHarness(url)]);
}

describe.each(engines)('hotQuery on %s', (_label, open) => {
  let h: Harness;
  beforeEach(async () => {
    h = await open();
  });
  afterEach(async () => {
    await h.close();
  });

  const INSERT = 'insert into items (id, label) values ($1::int, $2::text) returning id, label';
  const insert = (id: number, label: string) =>
    hotQuery<{ id: number; label: string }>(h.db, 'test_insert_item', INSERT, [String(id), label]);

  it('sends statements issued together as one batch and hands each caller its own rows', async () => {
    await insert(0, 'warm-up');
    const before = h.trips();
    const labels = Array.from({ length: 20 }, (_, i) => `label ${i} it's "quoted" \\ back ☃`);
    const results = await Promise.all(labels.map((label, i) => insert(i + 1, label)));
    expect(results.map((rows) => rows[0])).toEqual(labels.map((label, i) => ({ id: i + 1, label })));
    // One trip for the batch (PostgreSQL: plus, at most, the PREPARE on the batch's connection,
    // which shares that checkout), instead of twenty.
    expect(h.trips() - before).toBe(1);
  });

  it('a failing statement fails alone: the rest of its batch still commits', async () => {
    await insert(1, 'taken');
    const outcomes = await Promise.allSettled([insert(2, 'a'), insert(1, 'duplicate'), insert(3, 'b')]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [{ id: 2, label: 'a' }] });
    expect(outcomes[1]?.status).toBe('rejected');
    expect(sqlState((outcomes[1] as PromiseRejectedResult).reason)).toBe('23505');
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: [{ id: 3, label: 'b' }] });
    expect(await h.rows('select id, label from items order by id')).toEqual([
      { id: 1, label: 'taken' },
      { id: 2, label: 'a' },
      { id: 3, label: 'b' },
    ]);
  });

  it('statements queued while a batch runs go out in the next one, in order, none lost', async () => {
    await insert(0, 'warm-up');
    const before = h.trips();
    const first = Promise.all([insert(1, 'one'), insert(2, 'two')]);
    const later = (async () => {
      await new Promise((r) => setImmediate(r));
      return Promise.all([insert(3, 'three'), insert(4, 'four')]);
    })();
    await Promise.all([first, later]);
    expect(h.trips() - before).toBeLessThanOrEqual(2);
    const rows = await h.rows<{ id: number }>('select id from items order by id');
    expect(rows.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a statement waiting on a row lock held elsewhere does not hold up the others', async (ctx) => {
    if (!h.lockItem) return ctx.skip(); // PGlite has one session: nothing else can hold a lock
    await insert(1, 'locked');
    const release = await h.lockItem(1);
    const UPDATE = 'update items set label = $2::text where id = $1::int returning id, label';
    const blocked = hotQuery(h.db, 'test_update_item', UPDATE, ['1', 'updated']);
    let blockedDone = false;
    void blocked.then(() => {
      blockedDone = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    // Issued while the update waits for the lock: answered anyway.
    expect(await insert(2, 'free')).toEqual([{ id: 2, label: 'free' }]);
    expect(blockedDone).toBe(false);
    await release();
    expect(await blocked).toEqual([{ id: 1, label: 'updated' }]);
  });

  it('when the database is gone, every caller of a batch gets the error and nothing is re-run', async (ctx) => {
    if (!h.kill) return ctx.skip();
    await insert(0, 'warm-up');
    await h.kill();
    const before = h.trips();
    const outcomes = await Promise.allSettled([insert(1, 'a'), insert(2, 'b'), insert(3, 'c')]);
    for (const o of outcomes) expect(o).toMatchObject({ status: 'rejected', reason: { message: /closed/i } });
    expect(h.trips() - before).toBe(1); // the batch only: no statement-by-statement retry
  });

  it('refuses a NUL byte in a parameter without touching the batch', async () => {
    const outcomes = await Promise.allSettled([insert(9, 'nul\0byte'), insert(10, 'fine')]);
    expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { code: '22021' } });
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: [{ id: 10, label: 'fine' }] });
  });
});
