// PUT /user through the official client: metadata, password (ending the other sessions), an email
// already taken, and the reauthentication nonce for a password change from an old session.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpConfirmed } from '../../support/email-links.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('user updates and recovery', () => {
  it('updates metadata (null deletes a key) and the password, ending the other sessions', async () => {
    const email = uniqueEmail('upd');
    const sb = await signUpConfirmed(t, email);
    await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const other = t.client();
    await other.auth.signInWithPassword({ email, password: 'correct horse' });
    const meta = await sb.auth.updateUser({ data: { plan: 'pro', theme: 'dark' } });
    expect(meta.data.user?.user_metadata).toMatchObject({ plan: 'pro', theme: 'dark' });
    const removed = await sb.auth.updateUser({ data: { theme: null } });
    expect(removed.data.user?.user_metadata.theme).toBeUndefined();
    expect((await sb.auth.updateUser({ password: 'correct horse' })).error?.code).toBe('same_password');
    expect((await sb.auth.updateUser({ password: '123' })).error?.code).toBe('weak_password');
    expect((await sb.auth.updateUser({ password: 'brand new pass' })).error).toBeNull();
    expect((await other.auth.getUser()).error?.name).toBe('AuthSessionMissingError');
    expect((await sb.auth.getUser()).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'brand new pass' })).error,
    ).toBeNull();
  });

  it('refuses an email already registered, then marks the change pending', async () => {
    const email = uniqueEmail('old');
    const next = uniqueEmail('new');
    const sb = await signUpConfirmed(t, email);
    await sb.auth.signInWithPassword({ email, password: 'correct horse' });
    const taken = uniqueEmail('taken');
    await signUpConfirmed(t, taken);
    expect((await sb.auth.updateUser({ email: taken })).error?.code).toBe('email_exists');
    const { data, error } = await sb.auth.updateUser({ email: next });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.new_email).toBe(next);
  });
});

describe('password change from a session over 24 h old (reauthentication)', () => {
  it('needs the nonce mailed by GET /reauthenticate, spent only by a change that succeeds', async () => {
    const email = uniqueEmail('reauth');
    const sb = await signUpConfirmed(t, email);
    expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
    // A fresh session changes the password without a nonce (as after a recovery link).
    expect((await sb.auth.updateUser({ password: 'second password' })).error).toBeNull();
    await t.server.deps.db.execute(sql`update sessions set created_at = now() - interval '25 hours'
      where user_id = (select id from users where email = ${email})`);
    expect((await sb.auth.updateUser({ password: 'third password' })).error).toMatchObject({
      status: 400,
      code: 'reauthentication_needed',
    });
    expect((await sb.auth.reauthenticate()).error).toBeNull();
    const mail = await t.inbox.waitFor(email, (m) => /confirmation code/.test(m.subject));
    expect(mail.links).toEqual([]); // a code only
    const nonce = mail.code as string;
    const wrong = nonce === '000000' ? '111111' : '000000';
    expect((await sb.auth.updateUser({ password: 'third password', nonce: wrong })).error).toMatchObject({
      status: 422,
      code: 'reauthentication_not_valid',
    });
    // A change refused for another reason leaves the nonce unspent...
    expect((await sb.auth.updateUser({ password: 'second password', nonce })).error?.code).toBe(
      'same_password',
    );
    expect((await sb.auth.updateUser({ password: 'third password', nonce })).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'third password' })).error,
    ).toBeNull();
    // ...and a successful one spends it.
    expect((await sb.auth.updateUser({ password: 'fourth password', nonce })).error?.code).toBe(
      'reauthentication_not_valid',
    );
    // SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION=false: GoTrue's default, no nonce asked.
    t.config.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION = false;
    try {
      expect((await sb.auth.updateUser({ password: 'fourth password' })).error).toBeNull();
    } finally {
      t.config.SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION = true;
    }
  });
});
