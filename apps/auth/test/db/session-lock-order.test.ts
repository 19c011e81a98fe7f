// Every path that deletes sessions takes its row locks in the order a refresh does: the refresh
// token, then its session (db/sessions.repo.ts deleteSessionsWhere). A refresh is replayed here one
// lock at a time on a second connection, with the deletion started between its two locks; deleting
// the session first (its cascade reaching the token last) deadlocks, and PostgreSQL then kills one
// of the two, which the client sees as a 500. CI once met it as a flaky admin deleteUser.
// PostgreSQL only: PGlite has one connection, so its transactions never interleave.
import { createClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
   * Holds what a refresh holds between its two locks (the rotated token row), runs `deletion`,
   * gives it time to reach its first lock wait, then takes the session lock the child token's
   * foreign key takes, and commits. Resolves with the deletion's outcome; rejects on a deadlock
   * reported to this side.
   */
  async function refreshInterleavedWith<T>(refreshToken: string, deletion: () => Promise<T>): Promise<T> {
    const other = new pg.Client({ connectionString: t.config.DATABASE_URL });
    await other.connect();
    try {
      await other.query('begin');
      const { rows } = await other.query<{ session_id: string }>(
        'update auth.refresh_tokens set revoked = true, revoked_at = now() where token_hash = $1 returning session_id',
        [sha256(refreshToken)],
      );
      expect(rows).toHaveLength(1);
      const pending = deletion();
      await new Promise((r) => setTimeout(r, 400));
      await other.query('select 1 from auth.sessions where id = $1 for key share', [rows[0]!.session_id]);
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
