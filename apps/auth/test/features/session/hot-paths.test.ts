// The single-statement hot paths (src/db/sessions.repo.ts: refresh rotation, password session,
// session + user look-up) keep every rule of the multi-query code they replaced. Runs on PGlite and,
// with DATABASE_URL, on PostgreSQL.
import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRefreshToken } from '../../../src/core/refresh-token.ts';
import { sha256 } from '../../../src/crypto/tokens.ts';
import { queryRows } from '../../../src/db/client.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', REFRESH_TOKEN_REUSE_INTERVAL: '30' });
});
afterAll(async () => {
  await t?.close();
});

type Session = { access_token: string; refresh_token: string; user: { id: string; identities: unknown[] } };

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  t.api(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const refresh = async (token: string) =>
  json(await post('/token?grant_type=refresh_token', { refresh_token: token }));
const rows = <T>(q: ReturnType<typeof sql>) => queryRows<T>(t.server.deps.db, q);

async function signUp(password = 'hot-path-password-1'): Promise<Session & { email: string }> {
  const email = uniqueEmail('hot');
  const res = await json(await post('/signup', { email, password }));
  expect(res.status).toBe(200);
  return { ...(res.body as unknown as Session), email };
}

describe('refresh in one statement', () => {
  it('rotates, and a replayed parent or (within the interval) grandparent gets the active token', async () => {
    const s = await signUp();
    const r1 = await refresh(s.refresh_token);
    expect(r1.status).toBe(200);
    const t1 = r1.body.refresh_token as string;
    expect(t1).not.toBe(s.refresh_token);
    const r2 = await refresh(t1);
    const t2 = r2.body.refresh_token as string;
    expect(t2).not.toBe(t1);
    // t1 is the parent of the active t2; the first token is its grandparent (within 30 s).
    expect((await refresh(t1)).body.refresh_token).toBe(t2);
    const grand = await refresh(s.refresh_token);
    expect(grand.status).toBe(200);
    expect(grand.body.refresh_token).toBe(t2);
    expect((grand.body.user as { id: string }).id).toBe(s.user.id);
    // Nothing forked: one session, holding t2 as its active token (and no token rows), which still rotates.
    const held = await rows<{ hash: string; n: number }>(
      sql`select s.refresh_token_hash as hash,
        (select count(*)::int from refresh_tokens r where r.user_id = s.user_id) as n
        from sessions s where s.user_id = ${s.user.id}::uuid`,
    );
    expect(held).toEqual([{ hash: sha256(t2), n: 0 }]);
    expect((await refresh(t2)).status).toBe(200);
  });

  it("moves refreshed_on (the inactivity sweep's index) only once it is a week behind, so the other refreshes stay HOT", async () => {
    const s = await signUp();
    const day = async () =>
      (
        await rows<{ d: string }>(
          sql`select refreshed_on::text as d from sessions where user_id = ${s.user.id}::uuid`,
        )
      )[0]?.d;
    const setBack = (days: number) =>
      rows(sql`update sessions set refreshed_on = (now() at time zone 'UTC')::date - ${days}::int
        where user_id = ${s.user.id}::uuid`);
    const today = new Date().toISOString().slice(0, 10);
    expect(await day()).toBe(today);
    await setBack(6);
    const sixBack = await day();
    const r1 = await refresh(s.refresh_token);
    expect(r1.status).toBe(200);
    expect(await day()).toBe(sixBack);
    await setBack(7);
    expect((await refresh(r1.body.refresh_token as string)).status).toBe(200);
    expect(await day()).toBe(today);
  });

  it('answers the full user (identities) and an access token for the same session', async () => {
    const s = await signUp();
    const r = await refresh(s.refresh_token);
    const user = r.body.user as Record<string, unknown>;
    expect(user.email).toBe(s.email);
    expect((user.identities as Array<{ provider: string }>).map((i) => i.provider)).toEqual(['email']);
    expect(typeof user.created_at).toBe('string');
    const me = await json(
      await t.api('/user', { headers: { authorization: `Bearer ${r.body.access_token}` } }),
    );
    expect(me.status).toBe(200);
    expect(me.body).toEqual(user);
  });

  it('does not rotate the token of a banned user or an expired session', async () => {
    const s = await signUp();
    await rows(sql`update users set banned_until = now() + interval '1 hour' where id = ${s.user.id}::uuid`);
    const banned = await refresh(s.refresh_token);
    expect(banned.status).toBe(400);
    expect(banned.body.error_code ?? banned.body.code).toBe('user_banned');
    await rows(sql`update users set banned_until = null where id = ${s.user.id}::uuid`);

    await rows(
      sql`update sessions set not_after = now() - interval '1 second' where user_id = ${s.user.id}::uuid`,
    );
    const expired = await refresh(s.refresh_token);
    expect(expired.status).toBe(400);
    expect(expired.body.error_code ?? expired.body.code).toBe('session_expired');
    await rows(sql`update sessions set not_after = null where user_id = ${s.user.id}::uuid`);

    // Neither attempt consumed the token: it rotates normally now.
    const ok = await refresh(s.refresh_token);
    expect(ok.status).toBe(200);
    expect(ok.body.refresh_token).not.toBe(s.refresh_token);
  });

  it('unknown and replayed-outside-the-rules tokens get GoTrue errors, never 5xx', async () => {
    const unknown = await refresh('x'.repeat(43));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error_code ?? unknown.body.code).toBe('refresh_token_not_found');
    const odd = await refresh(`'; drop table users; --${'\\'.repeat(20)}`);
    expect(odd.status).toBe(400);
    // Well formed, naming a session that does not exist (or no longer does): unknown too.
    const orphan = await refresh(newRefreshToken(randomUUID()));
    expect(orphan.status).toBe(400);
    expect(orphan.body.error_code ?? orphan.body.code).toBe('refresh_token_not_found');
  });
});

describe('password sign-in in one statement', () => {
  it('stores the session with the exact user agent and ip, writes the audit row, returns the user', async () => {
    const s = await signUp();
    const agent = `Mozilla/5.0 (it's "quoted") back\\slash \\' E'x' 100% _ caf\u00e9 ${'z'.repeat(600)}`;
    const res = await json(
      await post(
        '/token?grant_type=password',
        { email: s.email, password: 'hot-path-password-1' },
        { 'user-agent': agent },
      ),
    );
    expect(res.status).toBe(200);
    const user = res.body.user as Record<string, unknown>;
    expect(user.id).toBe(s.user.id);
    expect(typeof user.last_sign_in_at).toBe('string');
    expect((user.identities as unknown[]).length).toBe(1);
    const me = await json(
      await t.api('/user', { headers: { authorization: `Bearer ${res.body.access_token}` } }),
    );
    expect(me.body).toEqual(user);

    const claims = JSON.parse(
      Buffer.from((res.body.access_token as string).split('.')[1] as string, 'base64url').toString(),
    );
    const [session] = await rows<{
      user_agent: string;
      ip: string;
      aal: string;
      amr: Array<{ method: string }>;
    }>(sql`select user_agent, ip, aal, amr from sessions where id = ${claims.session_id}::uuid`);
    expect(session?.user_agent).toBe(agent.slice(0, 512));
    expect(session?.ip).toBe('127.0.0.1');
    expect(session?.aal).toBe('aal1');
    expect(session?.amr.map((a) => a.method)).toEqual(['password']);
    const audit = await rows<{ n: number }>(
      sql`select count(*)::int as n from audit_log_entries where actor_id = ${s.user.id}::uuid and action = 'login'`,
    );
    expect(audit[0]?.n).toBe(1);
    // The new session's refresh token works.
    expect((await refresh(res.body.refresh_token as string)).status).toBe(200);
  });

  it('rehashes an imported bcrypt password to argon2id on sign-in', async () => {
    const s = await signUp();
    const bcryptHash = await bcrypt.hash('imported-password-9', 4);
    await rows(sql`update users set encrypted_password = ${bcryptHash} where id = ${s.user.id}::uuid`);
    const res = await json(
      await post('/token?grant_type=password', { email: s.email, password: 'imported-password-9' }),
    );
    expect(res.status).toBe(200);
    const [row] = await rows<{ encrypted_password: string }>(
      sql`select encrypted_password from users where id = ${s.user.id}::uuid`,
    );
    expect(row?.encrypted_password.startsWith('$argon2id$')).toBe(true);
    const again = await json(
      await post('/token?grant_type=password', { email: s.email, password: 'imported-password-9' }),
    );
    expect(again.status).toBe(200);
  });
});
