// A new embedded database is created and migrated in a child process (db/pglite-create.ts), so the
// process that serves never holds that work's WebAssembly memory (issue #19: ~360 MiB idle against
// ~220 MiB).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPgliteInChild } from '../../src/db/pglite-create.ts';
import { freePort, MAIN, serviceEnv, spawnEntry, waitHealthy } from '../support/entry-process.ts';

const root = mkdtempSync(join(tmpdir(), 'namaa-create-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The service's RSS (MiB) idle 8 s after it first answered /health on `dataDir` (bench/footprint.ts's way). */
async function idleRssMiB(dataDir: string): Promise<number> {
  const port = await freePort();
  const proc = spawnEntry(process.execPath, [MAIN], serviceEnv(port, { DATA_DIR: dataDir }));
  try {
    await waitHealthy(proc, port);
    await new Promise((r) => setTimeout(r, 8000));
    const status = readFileSync(`/proc/${proc.child.pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024);
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
    await proc.killGroup();
  }
}

describe.skipIf(process.env.DATABASE_URL)('creating the embedded database', () => {
  it('serves a first start in about the memory of a restart (initdb ran elsewhere)', async () => {
    const dataDir = join(root, 'memory');
    const first = await idleRssMiB(dataDir);
    expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
    const restart = await idleRssMiB(dataDir);
    console.log(`idle RSS: first start ${first} MiB, restart ${restart} MiB`);
    // With initdb in the serving process the first start held ~130 MiB more, for good.
    expect(first).toBeLessThan(restart + 60);
  }, 120_000);

  it('gives a migrated database in the namespace asked for, durable or not, and leaves no staging directory', async () => {
    for (const fsync of [true, false]) {
      const dataDir = join(root, `works-${fsync}`);
      const database = await openDatabase({ dataDir, fsync, namespace: 'tenant_a' });
      try {
        // Migrated by the child already, in the namespace asked for.
        const rows = await queryRows<{ n: number }>(
          database.db,
          sql`select count(*)::int as n from tenant_a.users`,
        );
        expect(rows[0]?.n).toBe(0);
        await migrate(database); // nothing left to apply
      } finally {
        await database.close();
      }
      expect(readdirSync(dataDir).filter((n) => n.includes('.creating-'))).toEqual([]);
    }
  }, 120_000);

  it('removes what an interrupted first start left, and creates the database anew', async () => {
    const dataDir = join(root, 'interrupted');
    const leftover = join(dataDir, 'pglite.creating-99999');
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, 'PG_VERSION'), '17');
    await createPgliteInChild(join(dataDir, 'pglite'), {
      durable: false,
      namespace: 'auth',
      sharedBuffers: '16MB',
    });
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
  }, 120_000);

  it('refuses, with a clear error, a directory that holds files but no database', async () => {
    const dataDir = join(root, 'foreign');
    // A non-empty directory without PG_VERSION is not ours to replace.
    mkdirSync(join(dataDir, 'pglite'), { recursive: true });
    writeFileSync(join(dataDir, 'pglite', 'notes.txt'), 'somebody else’s files');
    await expect(openDatabase({ dataDir, fsync: false })).rejects.toThrow(/holds files but no database/);
    expect(readdirSync(join(dataDir, 'pglite'))).toEqual(['notes.txt']);
    expect(readdirSync(dataDir).filter((n) => n.includes('.creating-'))).toEqual([]);
  }, 120_000);

  it('reports what stopped the child, and leaves neither a database nor a staging directory', async () => {
    const dataDir = join(root, 'failing');
    mkdirSync(dataDir, { recursive: true });
    await expect(
      createPgliteInChild(join(dataDir, 'pglite'), {
        durable: false,
        namespace: 'auth',
        sharedBuffers: 'lots',
      }),
    ).rejects.toThrow(/^creating the embedded database in \S+pglite failed: \w*Error: [^\n]{1,300}$/);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 120_000);
});
