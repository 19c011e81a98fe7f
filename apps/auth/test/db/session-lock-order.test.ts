// Every path that deletes sessions runs against a refresh in flight without a deadlock: a refresh
// holds the lock on its session row (the rotation's update); a refresh of a token issued before
// sessions held them locks its refresh_tokens row first, which is why deleteSessionsWhere
// (db/sessions.repo.ts) deletes token rows before sessions (the other order once deadlocked: a 500,
// met in CI as a flaky admin deleteUser). Here a second connection holds the session row's lock
// with the deletion started behind it: the deletion must wait, then succeed.
// PostgreSQL only: PGlite has one connection, so its transactions never interleave.
import { createClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshTokenSession } from '../../src/core/refresh-token.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import { sessions, users } from '../../src/db/schema.ts';
import { eraseAccountFor } from '../../src/features/account/account.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

const SERVICE_KEY = 'lock-order-service-role-key-0123456789abcdef';
const PASSWORD = 'Lock-Order-Pass-5521';
const noSession = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false };

describe.runIf(process.env.DATABASE_URL)('session deletions against a refresh in flight (PostgreSQL)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ SERVICE_ROLE_KEY: SERVICE_KEY });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const admin = () => createClient(t.url, SERVICE_KEY, { auth: noSession }).auth.admin;

  async function signedInUser(prefix: string) {
    const email = uniqueEmail(prefix);
    const created = await admin().createUser({ email, password: PASSWORD, email_confirm: true });
    expect(created.error).toBeNull();
    const client = t.client();
    const { data, error } = await client.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    return { userId: created.data.user!.id, session: data.session!, client };
  }

  /**
   * Holds what a refresh holds (the lock on its session row, taken by the rotation's update) while
   * `deletion` runs, gives it time to reach its lock wait, and commits. Resolves with the
   * deletion's outcome; rejects on a deadlock reported to this side.
   */
  async function refreshInterleavedWith<T>(refreshToken: string, deletion: () => Promise<T>): Promise<T> {
    const other = new pg.Client({ connectionString: t.config.DATABASE_URL });
    await other.connect();
    try {
      await other.query('begin');
      const { rows } = await other.query<{ id: string }>(
        `update auth.sessions set refresh_token_hash = 'rotated', refreshed_at = now()
         where id = $1 and refresh_token_hash = $2 returning id`,
        [refreshTokenSession(refreshToken), sha256(refreshToken)],
      );
      expect(rows).toHaveLength(1);
      const pending = deletion();
      await new Promise((r) => setTimeout(r, 400));
      await other.query('commit');
      return await pending;
    } finally {
      await other.end();
    }
  }

  it('admin deleteUser waits for the refresh, then deletes the user and every session', async () => {
    const { userId, session } = await signedInUser('lock-hard');
    const result = await refreshInterleavedWith(session.refresh_token, () => admin().deleteUser(userId));
    expect(result.error).toBeNull();
    const db = t.server.deps.db;
    expect(await db.select().from(users).where(eq(users.id, userId))).toHaveLength(0);
    expect(await db.select().from(sessions).where(eq(sessions.userId, userId))).toHaveLength(0);
  });

  it('admin soft delete waits for the refresh, then ends every session', async () => {
    const { userId, session } = await signedInUser('lock-soft');
    const result = await refreshInterleavedWith(session.refresh_token, () =>
      admin().deleteUser(userId, true),
    );
    expect(result.error).toBeNull();
    const db = t.server.deps.db;
    const [row] = await db.select().from(users).where(eq(users.id, userId));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    expect(await db.select().from(sessions).where(eq(sessions.userId, userId))).toHaveLength(0);
  });

  it('a global sign-out waits for the refresh, then ends every session', async () => {
    const { userId, session, client } = await signedInUser('lock-global');
    const result = await refreshInterleavedWith(session.refresh_token, () =>
      client.auth.signOut({ scope: 'global' }),
    );
    expect(result.error).toBeNull();
    const db = t.server.deps.db;
    expect(await db.select().from(sessions).where(eq(sessions.userId, userId))).toHaveLength(0);
  });

  it("the PDPL erasure (the account page's deletion and `users erase`) waits for the refresh", async () => {
    const { userId, session } = await signedInUser('lock-erase');
    await refreshInterleavedWith(session.refresh_token, () => eraseAccountFor(t.server.deps, userId, 'test'));
    const db = t.server.deps.db;
    expect(await db.select().from(users).where(eq(users.id, userId))).toHaveLength(0);
    expect(await db.select().from(sessions).where(eq(sessions.userId, userId))).toHaveLength(0);
  });
});
