// The hot-statement runner (src/db/hot-query.ts) on a real PGlite: statements issued together are
// committed together (group commit), yet every caller gets its own rows or its own error.
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/client.ts';
import { sqlState } from '../src/db/client.ts';
import { hotQuery } from '../src/db/hot-query.ts';

let client: PGlite;
let db: Db;
let execCalls: string[];

beforeEach(async () => {
  client = await PGlite.create();
  await client.exec('create table items (id int primary key, label text not null)');
  // Count the round trips into PGlite (the real client, observed).
  execCalls = [];
  const exec = client.exec.bind(client);
  client.exec = (query: string, ...rest) => {
    execCalls.push(query);
    return exec(query, ...rest);
  };
  db = drizzle(client) as unknown as Db;
});
afterEach(async () => {
  await client.close();
});

const INSERT = 'insert into items (id, label) values ($1::int, $2::text) returning id, label';
const insert = (id: number, label: string) =>
  hotQuery<{ id: number; label: string }>(db, 'test_insert_item', INSERT, [String(id), label]);

describe('hotQuery on PGlite', () => {
  it('sends statements issued together as one batch and hands each caller its own rows', async () => {
    await insert(0, 'warm-up'); // prepares the statement
    execCalls = [];
    const labels = Array.from({ length: 20 }, (_, i) => `label ${i} it's "quoted" \\ back`);
    const results = await Promise.all(labels.map((label, i) => insert(i + 1, label)));
    expect(results.map((rows) => rows[0])).toEqual(labels.map((label, i) => ({ id: i + 1, label })));
    expect(execCalls).toHaveLength(1);
    expect(execCalls[0]?.match(/execute test_insert_item/g)).toHaveLength(20);
  });

  it('a failing statement fails alone: the rest of its batch still commits', async () => {
    await insert(1, 'taken');
    const outcomes = await Promise.allSettled([insert(2, 'a'), insert(1, 'duplicate'), insert(3, 'b')]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: [{ id: 2, label: 'a' }] });
    expect(outcomes[1]?.status).toBe('rejected');
    expect(sqlState((outcomes[1] as PromiseRejectedResult).reason)).toBe('23505');
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: [{ id: 3, label: 'b' }] });
    const { rows } = await client.query<{ id: number; label: string }>(
      'select id, label from items order by id',
    );
    expect(rows).toEqual([
      { id: 1, label: 'taken' },
      { id: 2, label: 'a' },
      { id: 3, label: 'b' },
    ]);
  });

  it('statements queued while a batch runs go out in the next one, in order', async () => {
    await insert(0, 'warm-up');
    execCalls = [];
    const first = Promise.all([insert(1, 'one'), insert(2, 'two')]);
    // Issued after the first batch was scheduled but before it ran: still in order, none lost.
    const later = (async () => {
      await new Promise((r) => setImmediate(r));
      return Promise.all([insert(3, 'three'), insert(4, 'four')]);
    })();
    await Promise.all([first, later]);
    const { rows } = await client.query<{ id: number }>('select id from items order by id');
    expect(rows.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
    expect(execCalls.length).toBeLessThanOrEqual(2);
  });

  it('refuses a NUL byte in a parameter without touching the batch', async () => {
    await expect(insert(9, 'nul\0byte')).rejects.toMatchObject({ code: '22021' });
    expect(await insert(10, 'fine')).toEqual([{ id: 10, label: 'fine' }]);
  });
});
