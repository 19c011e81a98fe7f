// Every way the service hands out a session goes through issueSession() (core/issue-session.ts), and
// each answer is exactly the documented Session (the shared, strict schema of the OpenAPI document):
// sign-up with auto-confirm, password, refresh, PKCE exchange, email code, and MFA verification.
// One server with MAILER_AUTOCONFIRM (sign-up answers a session); the email code and the PKCE link
// come from recovery mail.
import { createHash, randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enrolledFactorSchema,
  type Session,
  sessionSchema,
  userSchema,
} from '../../src/core/http/response-schemas.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

const PASSWORD = 'Issue-Session-Pass-7731';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
});
afterAll(async () => {
  await t?.close();
});

async function post(path: string, body: unknown, accessToken?: string): Promise<Response> {
  return t.api(path, {
    method: 'POST',
    body: JSON.stringify(body),
    ...(accessToken ? { headers: { authorization: `Bearer ${accessToken}` } } : {}),
  });
}

/** The answer as the documented Session: no missing, extra or mistyped field at any depth. */
async function asSession(res: Response): Promise<Session> {
  expect(res.status).toBe(200);
  const parsed = sessionSchema.safeParse(await res.json());
  if (!parsed.success) throw new Error(`not a Session: ${JSON.stringify(parsed.error.issues)}`);
  return parsed.data;
}

describe('issueSession: one answer for every grant and verification', () => {
  it('sign-up, email code, password, refresh and MFA verification answer the documented Session', async () => {
    const email = uniqueEmail('issue');
    const signedUp = await asSession(await post('/signup', { email, password: PASSWORD }));
    expect(signedUp.user.identities).toHaveLength(1);
    expect(signedUp.user.factors).toBeUndefined();

    expect((await post('/recover', { email })).status).toBe(200);
    const { code } = await t.inbox.waitFor(email);
    const verified = await asSession(await post('/verify', { type: 'recovery', email, token: code }));
    expect(verified.user.email).toBe(email);
    expect(verified.weak_password).toBeUndefined();

    const password = await asSession(await post('/token?grant_type=password', { email, password: PASSWORD }));
    expect(password.weak_password).toBeNull();
    expect(password.user.identities.map((i) => i.provider)).toEqual(['email']);

    const refreshed = await asSession(
      await post('/token?grant_type=refresh_token', { refresh_token: password.refresh_token }),
    );
    expect(refreshed.user.id).toBe(password.user.id);

    const enrolled = enrolledFactorSchema.parse(
      await (await post('/factors', { factor_type: 'totp' }, refreshed.access_token)).json(),
    );
    const challenge = (await (
      await post(`/factors/${enrolled.id}/challenge`, {}, refreshed.access_token)
    ).json()) as {
      id: string;
    };
    const mfa = await asSession(
      await post(
        `/factors/${enrolled.id}/verify`,
        { challenge_id: challenge.id, code: await generate({ secret: enrolled.totp?.secret as string }) },
        refreshed.access_token,
      ),
    );
    // The factor now shows in the user object, through the shared Factor schema.
    expect(mfa.user.factors?.map((f) => [f.id, f.status])).toEqual([[enrolled.id, 'verified']]);

    const me = await t.api('/user', { headers: { authorization: `Bearer ${mfa.access_token}` } });
    expect(userSchema.parse(await me.json()).factors).toHaveLength(1);
  });

  it('a PKCE code exchange answers the documented Session', async () => {
    const email = uniqueEmail('issue-pkce');
    const verifier = randomBytes(48).toString('base64url');
    expect((await post('/signup', { email, password: PASSWORD })).status).toBe(200);
    const recover = await post('/recover', {
      email,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 's256',
    });
    expect(recover.status).toBe(200);
    const link = (await t.inbox.waitFor(email)).links[0] as string;
    const redirect = await fetch(link, { redirect: 'manual' });
    const authCode = new URL(redirect.headers.get('location') as string).searchParams.get('code');
    const session = await asSession(
      await post('/token?grant_type=pkce', { auth_code: authCode, code_verifier: verifier }),
    );
    expect(session.user.email).toBe(email);
  });
});
