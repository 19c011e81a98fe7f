// GoTrue's auth hooks over HTTP (issue #27), against a real hook endpoint that checks every
// request's Standard Webhooks signature with the `standardwebhooks` library: the custom
// access-token hook's claims in the token and in getClaims(), what each hook is sent (and nothing
// more), refusals, malformed answers, a timeout and claims that drop a required one, each answered
// with GoTrue's error, never a 500.
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HookServer, startHookServer } from '../../support/hook-server.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Hook-Suite-Pass-7731';
let hook: HookServer;
let t: TestServer;

/** HOOK_<NAME>_* pointing every hook named at the test's endpoint. */
function hookEnv(server: HookServer, ...names: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const n of names) {
    env[`HOOK_${n}_ENABLED`] = 'true';
    env[`HOOK_${n}_URI`] = server.url;
    env[`HOOK_${n}_SECRETS`] = server.secret;
  }
  return env;
}

const byName = (name: string) =>
  hook.calls.filter((c) => (c.body.metadata as { name: string }).name === name);

beforeAll(async () => {
  hook = await startHookServer();
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    ...hookEnv(
      hook,
      'CUSTOM_ACCESS_TOKEN',
      'PASSWORD_VERIFICATION_ATTEMPT',
      'MFA_VERIFICATION_ATTEMPT',
      'BEFORE_USER_CREATED',
      'AFTER_USER_CREATED',
    ),
  });
  // The behaviour each test needs is picked by the address it signs up with.
  hook.handle((body) => {
    const name = (body.metadata as { name: string }).name;
    const email =
      (body.claims as { email?: string } | undefined)?.email ??
      (body.user as { email?: string } | undefined)?.email ??
      '';
    if (name === 'customize-access-token') {
      const claims = { ...(body.claims as Record<string, unknown>) };
      if (email.startsWith('drop-')) {
        delete claims.session_id;
        return { body: { claims } };
      }
      if (email.startsWith('text-')) return { body: 'claims!' };
      if (email.startsWith('badjson-'))
        return { headers: { 'content-type': 'application/json' }, body: '{"claims": ' };
      if (email.startsWith('slow-')) return { delayMs: 6_500, body: { claims } };
      if (email.startsWith('status-')) return { status: 500, body: {} };
      return { body: { claims: { ...claims, tenant_id: 'tenant-42', role: 'authenticated' } } };
    }
    if (name === 'before-user-created' && email.startsWith('closed-'))
      return { body: { error: { http_code: 403, message: 'Sign-ups from this domain are closed' } } };
    if (name === 'password-verification') return { body: { decision: 'continue' } };
    if (name === 'mfa-verification') return { body: { decision: body.valid ? 'continue' : 'reject' } };
    return { status: 204 };
  });
});
afterAll(async () => {
  await t?.close();
  await hook?.close();
});

describe('custom_access_token', () => {
  it("adds claims to the token, getClaims() and every refresh; sees GoTrue's input and nothing more", async () => {
    const email = uniqueEmail('claims');
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
    expect(error).toBeNull();
    const token = data.session?.access_token as string;
    expect(decodeJwt(token)).toMatchObject({ tenant_id: 'tenant-42', email, role: 'authenticated' });
    const { data: viaClaims, error: claimsError } = await sb.auth.getClaims();
    expect(claimsError).toBeNull();
    expect(viaClaims?.claims).toMatchObject({ tenant_id: 'tenant-42', sub: data.user?.id });

    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(decodeJwt(refreshed.data.session?.access_token as string).tenant_id).toBe('tenant-42');

    const calls = byName('customize-access-token').filter(
      (c) => (c.body.claims as { email: string }).email === email,
    );
    expect(calls.map((c) => c.body.authentication_method)).toEqual(['password', 'token_refresh']);
    for (const call of calls) {
      expect(call.verified).toBe(true);
      expect(Object.keys(call.body).sort()).toEqual([
        'authentication_method',
        'claims',
        'metadata',
        'user_id',
      ]);
      expect(call.body.user_id).toBe(data.user?.id);
      expect(call.body.metadata).toMatchObject({ name: 'customize-access-token', ip_address: '127.0.0.1' });
      expect(Object.keys(call.body.claims as object).sort()).toEqual(
        [
          'aal',
          'amr',
          'app_metadata',
          'aud',
          'email',
          'exp',
          'iat',
          'is_anonymous',
          'iss',
          'phone',
          'role',
          'session_id',
          'sub',
          'user_metadata',
        ].sort(),
      );
      // Several signatures may be sent (one per secret); ours is one, Standard Webhooks' v1.
      expect(String(call.headers['webhook-signature'])).toMatch(/^v1,/);
    }
  });

  it('a hook that drops a required claim: 502 with GoTrue message, no token', async () => {
    const res = await t.api('/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
      body: JSON.stringify({ email: uniqueEmail('drop'), password: PASSWORD }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('unexpected_failure');
    expect(body.message).toContain('output claims do not conform to the expected schema');
    expect(body.message).toContain('session_id');
  });

  it("malformed answers: a non-JSON content type is GoTrue's 400, broken JSON and a 500 a 502", async () => {
    const text = await t.client().auth.signUp({ email: uniqueEmail('text'), password: PASSWORD });
    expect(text.error).toMatchObject({ status: 400, code: 'hook_payload_invalid_content_type' });
    const broken = await t.client().auth.signUp({ email: uniqueEmail('badjson'), password: PASSWORD });
    expect(broken.error).toMatchObject({ status: 502, message: 'Error unmarshaling JSON output.' });
    const status = await t.client().auth.signUp({ email: uniqueEmail('status'), password: PASSWORD });
    expect(status.error).toMatchObject({
      status: 502,
      message: 'Unexpected status code returned from hook: 500',
    });
  });

  it("a hook slower than 5 s: GoTrue's 422 hook_timeout, on time", async () => {
    const started = Date.now();
    const { error } = await t.client().auth.signUp({ email: uniqueEmail('slow'), password: PASSWORD });
    expect(error).toMatchObject({ status: 422, code: 'hook_timeout' });
    expect(Date.now() - started).toBeLessThan(6_400);
  }, 20_000);
});

describe('before_user_created and after_user_created', () => {
  it("a refusal is passed on with the hook's status and message, and no account is made", async () => {
    const email = uniqueEmail('closed');
    const { data, error } = await t.client().auth.signUp({ email, password: PASSWORD });
    expect(error).toMatchObject({ status: 403, message: 'Sign-ups from this domain are closed' });
    expect(data.user).toBeNull();
    expect(byName('after-user-created').some((c) => (c.body.user as { email: string }).email === email)).toBe(
      false,
    );
    const signIn = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(signIn.error?.code).toBe('invalid_credentials');
  });

  it('passwordless sign-up (POST /otp of a new address) runs both hooks too', async () => {
    const refused = await t.client().auth.signInWithOtp({ email: uniqueEmail('closed') });
    expect(refused.error).toMatchObject({ status: 403, message: 'Sign-ups from this domain are closed' });
    const email = uniqueEmail('otpuser');
    const { error } = await t.client().auth.signInWithOtp({ email });
    expect(error).toBeNull();
    const before = byName('before-user-created').find(
      (c) => (c.body.user as { email: string }).email === email,
    );
    const after = byName('after-user-created').find(
      (c) => (c.body.user as { email: string }).email === email,
    );
    expect(before?.body.user).toMatchObject({ email, app_metadata: { provider: 'email' } });
    const ids = [before, after].map((c) => (c?.body.user as { id?: string } | undefined)?.id);
    expect(ids[0]).toBeTruthy();
    expect(ids[1]).toBe(ids[0]);
  });

  it('both see the user (same id), without password hashes', async () => {
    const email = uniqueEmail('created');
    const { data, error } = await t
      .client()
      .auth.signUp({ email, password: PASSWORD, options: { data: { a: 1 } } });
    expect(error).toBeNull();
    const before = byName('before-user-created').find(
      (c) => (c.body.user as { email: string }).email === email,
    );
    const after = byName('after-user-created').find(
      (c) => (c.body.user as { email: string }).email === email,
    );
    expect(before?.body.user).toMatchObject({ id: data.user?.id, email, user_metadata: { a: 1 } });
    expect(after?.body.user).toMatchObject({ id: data.user?.id, email });
    expect(JSON.stringify([before?.body, after?.body])).not.toMatch(/password|argon2/i);
  });
});

describe('password_verification_attempt and mfa_verification_attempt', () => {
  it('the password hook is told of right and wrong passwords, and a rejection is invalid_credentials', async () => {
    const email = uniqueEmail('pw');
    const sb = t.client();
    const { data } = await sb.auth.signUp({ email, password: PASSWORD });
    const wrong = await t.client().auth.signInWithPassword({ email, password: 'not-the-password-1' });
    expect(wrong.error?.code).toBe('invalid_credentials');
    const right = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
    expect(right.error).toBeNull();
    const seen = byName('password-verification').filter((c) => c.body.user_id === data.user?.id);
    expect(seen.map((c) => c.body.valid)).toEqual([false, true]);
    expect(Object.keys(seen[0]?.body ?? {}).sort()).toEqual(['metadata', 'user_id', 'valid']);

    hook.handle((body) =>
      (body.metadata as { name: string }).name === 'password-verification'
        ? { body: { decision: 'reject', message: 'Locked by policy', should_logout_user: true } }
        : { body: { claims: body.claims } },
    );
    try {
      const refused = await t.client().auth.signInWithPassword({ email, password: PASSWORD });
      expect(refused.error).toMatchObject({
        status: 400,
        code: 'invalid_credentials',
        message: 'Locked by policy',
      });
      // should_logout_user: the earlier sessions are gone.
      const { error } = await sb.auth.refreshSession();
      expect(error).not.toBeNull();
    } finally {
      hook.handle((body) => {
        const name = (body.metadata as { name: string }).name;
        if (name === 'customize-access-token') return { body: { claims: body.claims } };
        if (name === 'mfa-verification') return { body: { decision: body.valid ? 'continue' : 'reject' } };
        return { body: {} };
      });
    }
  });

  it('a rejected MFA attempt answers 403 mfa_verification_rejected and signs the user out', async () => {
    const sb = t.client();
    const { data } = await sb.auth.signUp({ email: uniqueEmail('mfa'), password: PASSWORD });
    const { data: enrolled } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const factor = enrolled as { id: string; totp: { secret: string } };
    const ok = await sb.auth.mfa.challengeAndVerify({
      factorId: factor.id,
      code: await generate({ secret: factor.totp.secret }),
    });
    expect(ok.error).toBeNull();
    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    const bad = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data?.id as string,
      code: '000000',
    });
    expect(bad.error).toMatchObject({ status: 403, code: 'mfa_verification_rejected' });
    const seen = byName('mfa-verification').filter((c) => c.body.user_id === data.user?.id);
    expect(seen.map((c) => c.body.valid)).toEqual([true, false]);
    expect(seen[0]?.body).toMatchObject({ factor_id: factor.id, factor_type: 'totp' });
  });
});

describe('send_email and send_sms', () => {
  let sender: HookServer;
  let s: TestServer;
  beforeAll(async () => {
    sender = await startHookServer();
    s = await startTestServer({
      EXTERNAL_PHONE_ENABLED: 'true',
      ...hookEnv(sender, 'SEND_EMAIL', 'SEND_SMS'),
    });
  });
  afterAll(async () => {
    await s?.close();
    await sender?.close();
  });

  async function callFor(pred: (c: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const until = Date.now() + 15_000;
    for (;;) {
      const found = sender.calls.find((c) => pred(c.body));
      if (found) {
        expect(found.verified).toBe(true);
        return found.body;
      }
      if (Date.now() > until) throw new Error('the hook was not called');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("the confirmation mail goes to the hook with GoTrue's email_data (not SMTP), and its code works", async () => {
    const email = uniqueEmail('mailhook');
    const sb = s.client();
    const { error } = await sb.auth.signUp({ email, password: PASSWORD });
    expect(error).toBeNull();
    const body = await callFor((b) => (b.user as { email?: string }).email === email);
    expect(body.metadata).toMatchObject({ name: 'send-email' });
    const data = body.email_data as Record<string, string>;
    expect(data).toMatchObject({ email_action_type: 'signup', site_url: s.config.SITE_URL });
    expect(data.token).toMatch(/^\d{6}$/);
    expect(data.token_hash).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const verified = await sb.auth.verifyOtp({ email, token: data.token as string, type: 'signup' });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email).toBe(email);
    // The link's token works as GoTrue's token_hash too (a fresh recovery mail).
    await sb.auth.resetPasswordForEmail(email);
    const recovery = await callFor(
      (b) =>
        (b.user as { email?: string }).email === email &&
        (b.email_data as { email_action_type: string }).email_action_type === 'recovery',
    );
    const viaHash = await s.client().auth.verifyOtp({
      token_hash: (recovery.email_data as { token_hash: string }).token_hash,
      type: 'recovery',
    });
    expect(viaHash.error).toBeNull();
    expect(s.inbox.all().some((m) => m.to === email)).toBe(false);
  });

  it('a phone code goes to the send-SMS hook (code and number), and verifies', async () => {
    const phone = `9665${Math.floor(10_000_000 + Math.random() * 89_999_999)}`;
    const sb = s.client();
    const { error } = await sb.auth.signInWithOtp({ phone: `+${phone}` });
    expect(error).toBeNull();
    const body = await callFor((b) => (b.sms as { phone?: string } | undefined)?.phone === phone);
    expect(body.metadata).toMatchObject({ name: 'send-sms' });
    const otp = (body.sms as { otp: string }).otp;
    expect(otp).toMatch(/^\d{6}$/);
    const verified = await sb.auth.verifyOtp({ phone: `+${phone}`, token: otp, type: 'sms' });
    expect(verified.error).toBeNull();
  });

  it("a send-SMS hook's refusal reaches the client", async () => {
    sender.handle((b) =>
      b.sms ? { body: { error: { http_code: 422, message: 'Number not allowed' } } } : { body: {} },
    );
    const { error } = await s.client().auth.signInWithOtp({ phone: '+966512345678' });
    expect(error).toMatchObject({ status: 422, message: 'Number not allowed' });
  });
});

describe('with JWT_AUD and JWT_DEFAULT_GROUP_NAME set', () => {
  it('the hooks see the configured aud and role, and the hook-signed token verifies', async () => {
    const audHook = await startHookServer();
    audHook.handle((body) => {
      if ((body.metadata as { name: string }).name === 'customize-access-token')
        return { body: { claims: body.claims } };
      return { status: 204 };
    });
    const s = await startTestServer({
      MAILER_AUTOCONFIRM: 'true',
      JWT_AUD: 'namaa-api',
      JWT_DEFAULT_GROUP_NAME: 'member',
      ...hookEnv(audHook, 'CUSTOM_ACCESS_TOKEN', 'BEFORE_USER_CREATED'),
    });
    try {
      const sb = s.client();
      const email = uniqueEmail('aud');
      const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
      expect(error).toBeNull();
      const [created] = audHook.calls.filter(
        (c) => (c.body.metadata as { name: string }).name === 'before-user-created',
      );
      expect(created?.body.user).toMatchObject({ email, aud: 'namaa-api', role: 'member' });
      const [customized] = audHook.calls.filter(
        (c) => (c.body.metadata as { name: string }).name === 'customize-access-token',
      );
      expect(customized?.body.claims).toMatchObject({ aud: 'namaa-api', role: 'member' });
      expect(decodeJwt(data.session?.access_token as string)).toMatchObject({
        aud: 'namaa-api',
        role: 'member',
      });
      // The service verifies its own hook-signed token against JWT_AUD.
      const user = await sb.auth.getUser();
      expect(user.error).toBeNull();
      expect(user.data.user?.email).toBe(email);
    } finally {
      await s.close();
      await audHook.close();
    }
  });
});
