// Breached passwords (issue #27) against a local fake of the k-anonymity range API: a hit refused
// with weak_password reason `pwned` (sign-up and password change), a miss let through, only the
// 5-digit prefix sent, answers cached, and an outage with fail-open and with fail-closed.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthWeakPasswordError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

const BREACHED = 'Summer-Breach-2026!';
const sha1 = (p: string) => createHash('sha1').update(p).digest('hex').toUpperCase();

/** The fake range API: knows BREACHED (count 42), pads each answer, can be switched to an outage. */
async function startRangeApi() {
  const paths: string[] = [];
  let down = false;
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    if (down) {
      res.writeHead(503).end();
      return;
    }
    const prefix = (req.url ?? '').replace('/range/', '');
    const lines = Array.from(
      { length: 5 },
      () => `${randomBytes(17).toString('hex').toUpperCase().slice(0, 35)}:0`,
    );
    const breached = sha1(BREACHED);
    if (breached.startsWith(prefix)) lines.push(`${breached.slice(5)}:42`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    setDown(v: boolean) {
      down = v;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let api: Awaited<ReturnType<typeof startRangeApi>>;
let t: TestServer;
beforeAll(async () => {
  api = await startRangeApi();
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    PASSWORD_HIBP_ENABLED: 'true',
    PASSWORD_HIBP_API_URL: api.url,
  });
});
afterAll(async () => {
  await t?.close();
  await api?.close();
});

describe('PASSWORD_HIBP_ENABLED', () => {
  it('refuses a breached password at sign-up with weak_password, reason pwned; sends only the prefix', async () => {
    const { data, error } = await t.client().auth.signUp({ email: uniqueEmail('pwned'), password: BREACHED });
    expect(error).toBeInstanceOf(AuthWeakPasswordError);
    expect(error).toMatchObject({ status: 422, code: 'weak_password' });
    expect((error as AuthWeakPasswordError).reasons).toEqual(['pwned']);
    expect(data.user).toBeNull();
    const hash = sha1(BREACHED);
    expect(api.paths).toContain(`/range/${hash.slice(0, 5)}`);
    expect(api.paths.join(' ')).not.toContain(hash.slice(5));
  });

  it('lets a password that is not in the corpus through, and caches the range per prefix', async () => {
    const password = `Not-Breached-${randomBytes(6).toString('hex')}`;
    const before = api.paths.length;
    const first = await t.client().auth.signUp({ email: uniqueEmail('clean'), password });
    expect(first.error).toBeNull();
    const second = await t.client().auth.signUp({ email: uniqueEmail('clean'), password });
    expect(second.error).toBeNull();
    expect(api.paths.length - before).toBe(1);
  });

  it('refuses a breached password on password change (the reset path too)', async () => {
    const sb = t.client();
    const { error } = await sb.auth.signUp({ email: uniqueEmail('change'), password: 'A-Fine-Password-913' });
    expect(error).toBeNull();
    const changed = await sb.auth.updateUser({ password: BREACHED });
    expect(changed.error).toMatchObject({ status: 422, code: 'weak_password' });
    expect((changed.error as AuthWeakPasswordError).reasons).toEqual(['pwned']);
  });

  it('fail-open (the default): an outage lets the password through', async () => {
    api.setDown(true);
    try {
      const { error } = await t.client().auth.signUp({
        email: uniqueEmail('open'),
        password: `Outage-Open-${randomBytes(6).toString('hex')}`,
      });
      expect(error).toBeNull();
    } finally {
      api.setDown(false);
    }
  });

  it('fail-closed: an outage refuses the request with a 503, never a 500', async () => {
    const closed = await startTestServer({
      MAILER_AUTOCONFIRM: 'true',
      PASSWORD_HIBP_ENABLED: 'true',
      PASSWORD_HIBP_FAIL_CLOSED: 'true',
      PASSWORD_HIBP_API_URL: api.url,
    });
    api.setDown(true);
    try {
      const res = await closed.api('/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
        body: JSON.stringify({
          email: uniqueEmail('closed'),
          password: `Outage-Closed-${randomBytes(6).toString('hex')}`,
        }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        message: 'Unable to perform password strength check with HaveIBeenPwned.org.',
      });
    } finally {
      api.setDown(false);
      await closed.close();
    }
  }, 120_000);
});
