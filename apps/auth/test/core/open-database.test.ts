// In-memory databases after the first are copies of a migrated one (core/open-database.ts): each copy
// must hold every migration, none of another database's rows, and keys of its own.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openMigratedDatabase } from '../../src/core/open-database.ts';
import { queryRows } from '../../src/db/client.ts';
import { startTestServer } from '../support/test-server.ts';

const memoryConfig = (extra: Record<string, string> = {}) =>
  loadConfig({ NODE_ENV: 'test', DATA_DIR: 'memory://', ...extra });

// The cluster's identifier is made by initdb: a copy has its template's, a new cluster its own.
async function clusterId(database: Awaited<ReturnType<typeof openMigratedDatabase>>): Promise<string> {
  const [row] = await queryRows<{ id: string }>(
    database.db,
    sql`select system_identifier::text as id from pg_control_system()`,
  );
  return row?.id ?? '';
}

async function migrationCount(database: Awaited<ReturnType<typeof openMigratedDatabase>>): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    database.db,
    sql.raw(`select count(*)::int as n from "${database.namespace}".__drizzle_migrations`),
  );
  return row?.n ?? 0;
}

describe.skipIf(process.env.DATABASE_URL)('in-memory databases are copies of the first one migrated', () => {
  it('a copy holds every migration and none of the first database’s rows', { timeout: 120_000 }, async () => {
    const first = await openMigratedDatabase(memoryConfig());
    const second = await openMigratedDatabase(memoryConfig());
    try {
      expect(await clusterId(second)).toBe(await clusterId(first));
      expect(await migrationCount(second)).toBe(await migrationCount(first));
      expect(await migrationCount(first)).toBeGreaterThan(10);

      await first.db.execute(
        sql`insert into users (id, aud, role, email, created_at, updated_at) values (gen_random_uuid(), 'authenticated', 'authenticated', 'only-in-first@example.com', now(), now())`,
      );
      const third = await openMigratedDatabase(memoryConfig());
      try {
        for (const copy of [second, third]) {
          const rows = await queryRows<{ n: number }>(
            copy.db,
            sql`select count(*)::int as n from users where email = 'only-in-first@example.com'`,
          );
          expect(rows[0]?.n).toBe(0);
        }
      } finally {
        await third.close();
      }
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('another namespace gets a cluster of its own', { timeout: 120_000 }, async () => {
    const usual = await openMigratedDatabase(memoryConfig());
    const other = await openMigratedDatabase(memoryConfig({ DB_NAMESPACE: 'copy_test_ns' }));
    try {
      expect(other.namespace).toBe('copy_test_ns');
      expect(await clusterId(other)).not.toBe(await clusterId(usual));
      expect(await migrationCount(other)).toBe(await migrationCount(usual));
    } finally {
      await usual.close();
      await other.close();
    }
  });

  it('servers on copies sign with keys of their own', { timeout: 120_000 }, async () => {
    const a = await startTestServer();
    const b = await startTestServer();
    try {
      const jwks = async (url: string) =>
        (
          (await (await fetch(`${url}/auth/v1/.well-known/jwks.json`)).json()) as {
            keys: Array<{ kid: string }>;
          }
        ).keys.map((k) => k.kid);
      const [ka, kb] = [await jwks(a.url), await jwks(b.url)];
      expect(ka.length).toBeGreaterThan(0);
      expect(kb.filter((kid) => ka.includes(kid))).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
