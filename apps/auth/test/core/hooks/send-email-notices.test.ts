// Security notices through the send-email hook (issue #27): with HOOK_SEND_EMAIL_ENABLED the owner's
// notices (repeated wrong second-factor codes, a recovery code spent, the account deleted) go to
// the hook, as GoTrue sends its `*_notification` mails, and none goes by SMTP. The hook endpoint is
// real and checks each Standard Webhooks signature.
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HookServer, startHookServer } from '../../support/hook-server.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Hook-Notice-Pass-8812';
/** Every field of GoTrue's email_data (mailer.EmailData), empty where a mail has no use for it. */
const EMAIL_DATA_KEYS = [
  'email_action_type',
  'factor_type',
  'old_email',
  'old_phone',
  'provider',
  'redirect_to',
  'site_url',
  'token',
  'token_hash',
  'token_hash_new',
  'token_new',
];

let hook: HookServer;
let t: TestServer;

beforeAll(async () => {
  hook = await startHookServer();
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    RATE_LIMIT_MFA_BACKOFF_AFTER: '2',
    HOOK_SEND_EMAIL_ENABLED: 'true',
    HOOK_SEND_EMAIL_URI: hook.url,
    HOOK_SEND_EMAIL_SECRETS: hook.secret,
  });
  hook.handle(() => ({ status: 204 }));
});
afterAll(async () => {
  await t?.close();
  await hook?.close();
});

type Json = Record<string, unknown>;

/** The send-email call for `email` with this action type (the outbox sends after commit). */
async function hookMail(email: string, actionType: string): Promise<{ user: Json; email_data: Json }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const found = hook.calls.find(
      (c) =>
        (c.body.user as { email?: string }).email === email &&
        (c.body.email_data as { email_action_type?: string }).email_action_type === actionType,
    );
    if (found) {
      expect(found.verified).toBe(true);
      expect((found.body.metadata as { name: string }).name).toBe('send-email');
      return found.body as { user: Json; email_data: Json };
    }
    if (Date.now() > until) throw new Error(`no ${actionType} for ${email} reached the hook`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await t.api(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-supabase-api-version': '2024-01-01' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Json & { id?: string } };
}

/** A signed-up user with a verified TOTP factor. */
async function totpUser() {
  const email = uniqueEmail('notice');
  const { data, error } = await t.client().auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  const token = data.session?.access_token as string;
  const enrolled = await call(token, 'POST', '/factors', { factor_type: 'totp', friendly_name: 'app' });
  const secret = (enrolled.body.totp as { secret: string }).secret;
  const factorId = enrolled.body.id as string;
  const ch = await call(token, 'POST', `/factors/${factorId}/challenge`, {});
  const ok = await call(token, 'POST', `/factors/${factorId}/verify`, {
    challenge_id: ch.body.id,
    code: await generate({ secret }),
  });
  expect(ok.status).toBe(200);
  return { email, factorId, secret, userId: data.user?.id as string, aal2: ok.body.access_token as string };
}

async function passwordSession(email: string): Promise<string> {
  const { data, error } = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
  expect(error).toBeNull();
  return data.session?.access_token as string;
}

describe('security notices go to the send-email hook, not SMTP', () => {
  it('repeated wrong second-factor codes', async () => {
    const u = await totpUser();
    const token = await passwordSession(u.email);
    const ch = await call(token, 'POST', `/factors/${u.factorId}/challenge`, {});
    for (let i = 0; i < 2; i++) {
      const r = await call(token, 'POST', `/factors/${u.factorId}/verify`, {
        challenge_id: ch.body.id,
        code: '000000',
      });
      expect(r.status).toBe(422);
    }
    const sent = await hookMail(u.email, 'mfa_verification_failures_notification');
    expect(Object.keys(sent.email_data).sort()).toEqual(EMAIL_DATA_KEYS);
    expect(sent.email_data).toMatchObject({
      factor_type: 'totp',
      token: '',
      token_hash: '',
      site_url: t.config.SITE_URL,
    });
    expect(sent.user).toMatchObject({ id: u.userId, email: u.email });
    await t.server.deps.mail.idle();
    expect(t.inbox.all().some((m) => m.to.includes(u.email))).toBe(false);
  });

  it('a recovery code spent', async () => {
    const u = await totpUser();
    const gen = await call(u.aal2, 'POST', '/factors/recovery-codes', {});
    expect(gen.status).toBe(200);
    const token = await passwordSession(u.email);
    const used = await call(token, 'POST', '/factors/recovery-codes/verify', {
      code: (gen.body.codes as string[])[0],
    });
    expect(used.status).toBe(200);
    expect(decodeJwt(used.body.access_token as string).aal).toBe('aal2');
    const sent = await hookMail(u.email, 'mfa_recovery_code_used_notification');
    expect(Object.keys(sent.email_data).sort()).toEqual(EMAIL_DATA_KEYS);
    expect(sent.user).toMatchObject({ id: u.userId, email: u.email });
    await t.server.deps.mail.idle();
    expect(t.inbox.all().some((m) => m.to.includes(u.email))).toBe(false);
  });

  it('the account deleted: the hook is sent the user as it was', async () => {
    const email = uniqueEmail('gone');
    const { data } = await t
      .client()
      .auth.signUp({ email, password: PASSWORD, options: { data: { locale: 'ar' } } });
    const token = data.session?.access_token as string;
    // The reauthentication code goes to the hook too (a link mail), and the deletion spends it.
    expect((await t.api('/reauthenticate', { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    const nonce = (await hookMail(email, 'reauthentication')).email_data.token as string;
    const del = await t.api('/account', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ nonce }),
    });
    expect(del.status).toBe(204);
    const sent = await hookMail(email, 'account_deleted_notification');
    expect(Object.keys(sent.email_data).sort()).toEqual(EMAIL_DATA_KEYS);
    expect(sent.user).toMatchObject({ id: data.user?.id, email, user_metadata: { locale: 'ar' } });
    expect(JSON.stringify(sent)).not.toMatch(/argon2|encrypted_password/);
    await t.server.deps.mail.idle();
    expect(t.inbox.all().some((m) => m.to.includes(email))).toBe(false);
  });
});
