// Issue #22 (Low): the anti-enumeration answer to a repeated sign-up of a confirmed address must look
// like the answer for a new address in every key, type and value a stranger can compare. It had
// `role: ""` where a real new user has `"authenticated"`. Two differences are kept on purpose, as in
// GoTrue (README, "Decisions and deviations"): the fake has `identities: []`, and a repeated sign-up
// of a *pending* address answers the pending user (its first id and created_at).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'correct horse battery';

async function signUp(email: string, data: Record<string, unknown> = { plan: 'pro' }) {
  const res = await t.api('/signup', {
    method: 'POST',
    body: JSON.stringify({ email, password: PASSWORD, data }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('repeated sign-up', () => {
  it('of a confirmed address answers a user identical in shape and values to a new one', async () => {
    const taken = uniqueEmail('taken');
    t.config.MAILER_AUTOCONFIRM = true;
    await signUp(taken);
    t.config.MAILER_AUTOCONFIRM = false;

    const fresh = await signUp(uniqueEmail('fresh'));
    const fake = await signUp(taken);

    expect(Object.keys(fake).sort()).toEqual(Object.keys(fresh).sort());
    for (const key of Object.keys(fresh)) expect(kind(fake[key]), key).toBe(kind(fresh[key]));
    for (const key of ['aud', 'role', 'phone', 'app_metadata', 'user_metadata', 'is_anonymous'])
      expect(fake[key], key).toEqual(fresh[key]);
    expect(fresh.role).toBe('authenticated');
    for (const user of [fresh, fake]) {
      expect(user.id).toMatch(UUID_V4);
      for (const key of ['created_at', 'updated_at', 'confirmation_sent_at']) expect(user[key]).toMatch(ISO);
      // All three are "now" for a new user, so they must be for the fake one as well.
      expect(user.updated_at).toBe(user.created_at);
      expect(user.confirmation_sent_at).toBe(user.created_at);
    }
    expect(fake.email).toBe(taken);
    // Kept on purpose for GoTrue compatibility (apps test `identities.length === 0`).
    expect(fresh.identities).toHaveLength(1);
    expect(fake.identities).toEqual([]);
  });

  it('of a pending address answers the pending user, as GoTrue does (documented choice)', async () => {
    t.config.MAILER_AUTOCONFIRM = false;
    const email = uniqueEmail('pending');
    const first = await signUp(email);
    const second = await signUp(email, { plan: 'free' });
    expect(second.id).toBe(first.id);
    expect(second.created_at).toBe(first.created_at);
    expect(second.user_metadata).toEqual({ plan: 'free' });
  });
});
