// Password recovery through the emailed link (implicit flow; PKCE recovery is in pkce.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followLink, signUpConfirmed } from '../../support/email-links.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe('recovery', () => {
  it('recovers a password through the emailed link (and answers {} for unknown emails)', async () => {
    const email = uniqueEmail('recover');
    await signUpConfirmed(t, email);
    const sb = t.client();
    expect((await sb.auth.resetPasswordForEmail(uniqueEmail('ghost'))).error).toBeNull();
    const { error } = await sb.auth.resetPasswordForEmail(email, { redirectTo: `${t.url}/reset` });
    expect(error).toBeNull();
    const mail = await t.inbox.waitFor(email, (m) => /reset/i.test(m.subject));
    const { location, params } = await followLink(mail.links[0] as string);
    expect(location.pathname).toBe('/reset');
    expect(params.get('type')).toBe('recovery');
    const recovered = t.client();
    await recovered.auth.setSession({
      access_token: params.get('access_token') as string,
      refresh_token: params.get('refresh_token') as string,
    });
    expect((await recovered.auth.updateUser({ password: 'recovered pass' })).error).toBeNull();
    expect(
      (await t.client().auth.signInWithPassword({ email, password: 'recovered pass' })).error,
    ).toBeNull();
    expect((await followLink(mail.links[0] as string)).params.get('error_code')).toBe('otp_expired');
  });
});
