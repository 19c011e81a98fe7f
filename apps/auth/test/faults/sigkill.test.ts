// The process SIGKILLed in a loop during sign-ups and refreshes (issue 6), on PGlite and PostgreSQL:
// the database opens again, every acknowledged sign-up is present and signs in, no user is left
// half-created, and every session keeps working from the last refresh token its client was given.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../src/db/client.ts';
import {
  createDatabase,
  postgresReachable,
  type ServiceProcess,
  sleep,
  startService,
  uniqueEmail,
} from './support.ts';

const CYCLES = Number(process.env.FAULT_KILL_CYCLES ?? 4);
const PASSWORD = 'correct horse';

type Client = { email: string; refreshToken: string };

/** Sign-ups and refreshes in parallel until stopped; records only what the service acknowledged. */
function workload(svc: ServiceProcess, clients: Client[], acked: string[]) {
  let running = true;
  const post = (path: string, body: unknown) =>
    svc.api(path, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const signUps = Array.from({ length: 2 }, async () => {
    while (running) {
      const email = uniqueEmail('kill');
      try {
        const r = await post('/signup', { email, password: PASSWORD });
        if (r.status !== 200) continue;
        const body = await r.json(); // the acknowledgement is the whole answer, read to the end
        acked.push(email);
        if (clients.length < 12) clients.push({ email, refreshToken: body.refresh_token });
      } catch {
        // killed mid-request: not acknowledged
      }
    }
  });
  const refreshes = Array.from({ length: 2 }, async (_, w) => {
    while (running) {
      const mine = clients.filter((_, i) => i % 2 === w);
      if (mine.length === 0) {
        await sleep(20);
        continue;
      }
      for (const c of mine) {
        try {
          const r = await post('/token?grant_type=refresh_token', { refresh_token: c.refreshToken });
          if (r.status === 200) c.refreshToken = (await r.json()).refresh_token;
        } catch {
          // killed mid-request: the client keeps the token it had
        }
        if (!running) break;
      }
    }
  });
  return async () => {
    running = false;
    await Promise.all([...signUps, ...refreshes]);
  };
}

async function killLoop(env: Record<string, string>) {
  const clients: Client[] = [];
  const acked: string[] = [];
  let kills = 0;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const svc = await startService(env);
    expect(svc.child.exitCode, svc.logs()).toBeNull();
    // Everything acknowledged before this start is there: sessions refresh, accounts sign in.
    for (const c of clients) {
      const r = await svc.api('/token?grant_type=refresh_token', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: c.refreshToken }),
      });
      expect(r.status, `session of ${c.email} after ${kills} kills: ${await r.clone().text()}`).toBe(200);
      c.refreshToken = (await r.json()).refresh_token;
    }
    const stop = workload(svc, clients, acked);
    await sleep(800 + Math.random() * 1500);
    await svc.kill('SIGKILL');
    kills++;
    await stop();
  }
  const final = await startService(env);
  try {
    for (const email of acked) {
      const r = await final.api('/token?grant_type=password', {
        method: 'POST',
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      expect(r.status, `acknowledged sign-up ${email} is missing`).toBe(200);
    }
    for (const c of clients) {
      const r = await final.api('/token?grant_type=refresh_token', {
        method: 'POST',
        body: JSON.stringify({ refresh_token: c.refreshToken }),
      });
      expect(r.status, `session of ${c.email} lost`).toBe(200);
    }
  } finally {
    await final.kill('SIGTERM');
  }
  console.log(
    `${kills} SIGKILLs: ${acked.length} acknowledged sign-ups all present, ${clients.length} sessions all alive`,
  );
  expect(acked.length).toBeGreaterThan(0);
  expect(clients.length).toBeGreaterThan(0);
}

const pgAvailable = await postgresReachable();
const orphanCount = sql`select count(*)::int as n from users u left join identities i on i.user_id = u.id where i.id is null`;

describe('SIGKILL during sign-ups and refreshes', () => {
  it('PGlite: reopens, keeps every acknowledged sign-up and session, no half-created user', {
    timeout: 240_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'namaa-kill-'));
    try {
      await killLoop({ DATA_DIR: dir });
      const database = await openDatabase({ dataDir: dir });
      try {
        const [row] = await queryRows<{ n: number }>(database.db, orphanCount);
        expect(row?.n).toBe(0);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!pgAvailable)(
    'PostgreSQL: keeps every acknowledged sign-up and session, no half-created user',
    { timeout: 240_000 },
    async () => {
      const db = await createDatabase();
      try {
        await killLoop({ DATABASE_URL: db.url });
        const orphans = await db.query(
          'select count(*)::int as n from users u left join identities i on i.user_id = u.id where i.id is null',
        );
        expect(orphans.rows[0].n).toBe(0);
      } finally {
        await db.drop();
      }
    },
  );
});
