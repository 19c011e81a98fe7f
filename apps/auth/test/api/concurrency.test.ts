// Races the issue names: parallel sign-ups of one email, parallel refreshes of one token, parallel
// uses of one email link. Each fires 20 requests at once against the real service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const post = (path: string, body: unknown) => t.api(path, { method: 'POST', body: JSON.stringify(body) });

describe('concurrency', () => {
  it('20 parallel sign-ups of one email (case variants included) make exactly one account, no 5xx', async () => {
    const email = uniqueEmail('race');
    const variants = Array.from({ length: 20 }, (_, i) => (i % 2 ? email.toUpperCase() : email));
    const responses = await Promise.all(
      variants.map((e) => post('/signup', { email: e, password: 'secret-pass' })),
    );
    for (const r of responses) expect(r.status).toBe(200);
    const users = await Promise.all(responses.map((r) => r.json()));
    const ids = new Set(users.map((u) => u.id));
    expect(ids.size).toBe(1);
    const rows = await t.server.deps.database.db.execute(
      // biome-ignore lint/suspicious/noExplicitAny: raw count
      (await import('drizzle-orm')).sql`select count(*)::int as n from users where email = ${email}` as any,
    );
    expect((rows as unknown as { rows: Array<{ n: number }> }).rows[0]?.n).toBe(1);
    // The confirmation mail went out once for the creation (losers of the race send nothing).
    await t.inbox.waitFor(email);
  });

  it('20 parallel refreshes of one token: no 5xx, all get the same new token, the session survives', async () => {
    const email = uniqueEmail('refresh');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const token = new URL(mail.links[0] as string).searchParams.get('token');
    const session = await (await post('/verify', { type: 'signup', token_hash: token })).json();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        post('/token?grant_type=refresh_token', { refresh_token: session.refresh_token }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const bodies = await Promise.all(responses.map((r) => r.json()));
    const next = new Set(bodies.map((b) => b.refresh_token));
    expect(next.size).toBe(1);
    const [child] = [...next];
    expect(child).not.toBe(session.refresh_token);
    // The session is alive: the new token refreshes, the access tokens work.
    const again = await post('/token?grant_type=refresh_token', { refresh_token: child });
    expect(again.status).toBe(200);
    const user = await t.api('/user', { headers: { authorization: `Bearer ${bodies[0].access_token}` } });
    expect(user.status).toBe(200);
  });

  it('20 parallel uses of one email link: exactly one succeeds', async () => {
    const email = uniqueEmail('link');
    await t.client().auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const link = mail.links[0] as string;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => fetch(link, { redirect: 'manual' })),
    );
    const fragments = responses.map(
      (r) => new URLSearchParams(new URL(r.headers.get('location') as string).hash.slice(1)),
    );
    expect(responses.every((r) => r.status === 303)).toBe(true);
    expect(fragments.filter((f) => f.get('access_token')).length).toBe(1);
    expect(fragments.filter((f) => f.get('error_code') === 'otp_expired').length).toBe(19);
  });

  it('20 parallel POST /verify of one code: exactly one session', async () => {
    const email = uniqueEmail('code');
    await t.client().auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post('/verify', { type: 'signup', email, token: mail.code })),
    );
    expect(responses.filter((r) => r.status === 200).length).toBe(1);
    expect(responses.filter((r) => r.status === 403).length).toBe(19);
  });
});
