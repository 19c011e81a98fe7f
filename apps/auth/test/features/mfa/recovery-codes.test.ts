// MFA recovery codes (issue #27): GoTrue's /factors/recovery-codes wire, driven through fetch with a
// thin helper shaped like supabase-js's experimental `auth.mfa.recoveryCodes` (supabase-js #2676; the
// installed client predates it), and the sign-in's first step through the real supabase-js.
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogEntries } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const PASSWORD = 'Namaa-recovery-Pass-7731';
const SERVICE_KEY = 'sb_secret_recovery_codes_admin_0123456789abcdef';
const MAX_FAILED = 3;
const LOCKOUT_SECONDS = 2;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    MAILER_AUTOCONFIRM: 'true',
    SERVICE_ROLE_KEY: SERVICE_KEY,
    MFA_RECOVERY_CODES_MAX_FAILED_ATTEMPTS: String(MAX_FAILED),
    MFA_RECOVERY_CODES_LOCKOUT_DURATION: String(LOCKOUT_SECONDS),
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read nested fields of GoTrue's JSON answers
type Json = Record<string, any>;
type Result<T> = { data: T; error: null; status: number } | { data: null; error: Json; status: number };
type CodesAnswer = {
  id: string;
  type: 'recovery_code';
  friendly_name: string;
  total: number;
  codes: string[];
};

async function call(
  server: TestServer,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await server.api(path, {
    method,
    // supabase-js's API version header: errors come back as {code, message}.
    headers: {
      'x-supabase-api-version': '2024-01-01',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

/** supabase-js #2676's `mfa.recoveryCodes`, over fetch: `{data, error}` as the client answers. */
function recoveryCodes(server: TestServer, token: string) {
  const wrap = async <T>(method: string, path: string, body?: unknown): Promise<Result<T>> => {
    const r = await call(server, token, method, path, body);
    return r.status === 200
      ? { data: r.body as T, error: null, status: r.status }
      : { data: null, error: r.body, status: r.status };
  };
  return {
    getStatus: () => wrap<{ id: string; total: number; remaining: number }>('GET', '/factors/recovery-codes'),
    generate: (params: { friendlyName?: string } = {}) =>
      wrap<CodesAnswer>(
        'POST',
        '/factors/recovery-codes',
        params.friendlyName ? { friendly_name: params.friendlyName } : {},
      ),
    regenerate: () => wrap<CodesAnswer>('POST', '/factors/recovery-codes/regenerate'),
    verify: (code: string) => wrap<Json>('POST', '/factors/recovery-codes/verify', { code }),
    unenroll: () => wrap<{ id: string }>('DELETE', '/factors/recovery-codes'),
  };
}

const totp = (secret: string, offset = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset });

/** A user with a verified TOTP factor: the aal2 token of the enrolling session. */
async function userWithTotp(data: Record<string, unknown> = {}) {
  const email = uniqueEmail('rc');
  const sb = t.client();
  const { data: up, error } = await sb.auth.signUp({ email, password: PASSWORD, options: { data } });
  expect(error).toBeNull();
  const token = up.session?.access_token as string;
  const enrolled = await call(t, token, 'POST', '/factors', {
    factor_type: 'totp',
    friendly_name: 'phone app',
  });
  expect(enrolled.status).toBe(200);
  const totpId = enrolled.body.id as string;
  const secret = enrolled.body.totp.secret as string;
  const ch = await call(t, token, 'POST', `/factors/${totpId}/challenge`, {});
  const v = await call(t, token, 'POST', `/factors/${totpId}/verify`, {
    challenge_id: ch.body.id,
    code: await totp(secret),
  });
  expect(v.status).toBe(200);
  return { email, totpId, secret, aal2: v.body.access_token as string };
}

/** The first sign-in step through supabase-js: an aal1 session that must still prove a factor. */
async function passwordStep(email: string) {
  const sb = t.client();
  const { data, error } = await sb.auth.signInWithPassword({ email, password: PASSWORD });
  expect(error).toBeNull();
  const token = data.session?.access_token as string;
  expect(decodeJwt(token).aal).toBe('aal1');
  const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
  expect(aal.data?.nextLevel).toBe('aal2');
  return { sb, token, refresh: data.session?.refresh_token as string };
}

async function withCodes(data: Record<string, unknown> = {}) {
  const u = await userWithTotp(data);
  const gen = await recoveryCodes(t, u.aal2).generate();
  expect(gen.error).toBeNull();
  return { ...u, codes: (gen.data as CodesAnswer).codes, factorId: (gen.data as CodesAnswer).id };
}

describe('generate and status', () => {
  it('an aal2 session gets 10 distinct high-entropy codes once; the status counts them and never shows one', async () => {
    const u = await userWithTotp();
    const rc = recoveryCodes(t, u.aal2);
    expect((await rc.getStatus()).error?.code).toBe('mfa_factor_not_found');
    const gen = await rc.generate();
    expect(gen.error).toBeNull();
    const set = gen.data as CodesAnswer;
    expect(set.type).toBe('recovery_code');
    expect(set.friendly_name).toBe('Recovery codes');
    expect(set.total).toBe(10);
    expect(set.codes).toHaveLength(10);
    expect(new Set(set.codes).size).toBe(10);
    for (const code of set.codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{16}$/);

    const status = await rc.getStatus();
    expect(status.data).toEqual({ id: set.id, total: 10, remaining: 10 });
    expect(JSON.stringify(status.data)).not.toContain(set.codes[0]);

    // Listed among the user's factors, created verified, with no secret in it.
    const me = await call(t, u.aal2, 'GET', '/user');
    const listed = (me.body.factors as Json[]).find((f) => f.factor_type === 'recovery_code');
    expect(listed).toMatchObject({ id: set.id, status: 'verified', friendly_name: 'Recovery codes' });
    expect(JSON.stringify(me.body)).not.toContain(set.codes[0]);

    // One set per user: a second generate is GoTrue's mfa_verified_factor_exists.
    const again = await rc.generate();
    expect(again.status).toBe(422);
    expect(again.error?.code).toBe('mfa_verified_factor_exists');
  });

  it('takes a friendly name', async () => {
    const u = await userWithTotp();
    const gen = await recoveryCodes(t, u.aal2).generate({ friendlyName: 'Printed sheet' });
    expect(gen.data?.friendly_name).toBe('Printed sheet');
  });

  it('needs aal2: a password-only session can neither generate, regenerate nor delete', async () => {
    const u = await userWithTotp();
    const { token } = await passwordStep(u.email);
    const rc = recoveryCodes(t, token);
    for (const r of [await rc.generate(), await rc.regenerate(), await rc.unenroll()]) {
      expect(r.status).toBe(403);
      expect(r.error?.code).toBe('insufficient_aal');
    }
    // A user without any factor is aal1 too: nothing to back up, nothing generated.
    const lone = await t.client().auth.signUp({ email: uniqueEmail('rc-none'), password: PASSWORD });
    const none = await recoveryCodes(t, lone.data.session?.access_token as string).generate();
    expect(none.status).toBe(403);
  });
});

describe('the second sign-in step with a recovery code', () => {
  it('reaches aal2 (amr mfa/recovery_code), spends the code, refuses it again, and mails the owner', async () => {
    const u = await withCodes();
    const { sb, token } = await passwordStep(u.email);
    // Typed back as a person would: grouped, upper case.
    const typed = (u.codes[0] as string).toUpperCase().replace(/(.{4})(?=.)/g, '$1-');
    const verified = await recoveryCodes(t, token).verify(typed);
    expect(verified.error).toBeNull();
    const session = verified.data as Json;
    const claims = decodeJwt(session.access_token as string);
    expect(claims.aal).toBe('aal2');
    expect((claims.amr as Json[]).map((a) => a.method)).toContain('mfa/recovery_code');
    expect(session.user.id).toBe(claims.sub);

    // The client takes the session as after any MFA verify.
    const set = await sb.auth.setSession({
      access_token: session.access_token,
      refresh_token: session.refresh_token,
    });
    expect(set.error).toBeNull();
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe('aal2');
    const refreshed = await sb.auth.refreshSession();
    expect(decodeJwt(refreshed.data.session?.access_token as string).aal).toBe('aal2');

    expect((await recoveryCodes(t, u.aal2).getStatus()).data).toMatchObject({ total: 10, remaining: 9 });

    // Single use: a new sign-in cannot spend it again.
    const second = await passwordStep(u.email);
    const reused = await recoveryCodes(t, second.token).verify(u.codes[0] as string);
    expect(reused.status).toBe(422);
    expect(reused.error?.code).toBe('mfa_verification_failed');
    // Another code of the set still works.
    expect((await recoveryCodes(t, second.token).verify(u.codes[1] as string)).error).toBeNull();

    // Each use and each failure is audited (never with the code in it).
    const userId = claims.sub as string;
    const rows = await t.server.deps.db
      .select()
      .from(auditLogEntries)
      .where(eq(auditLogEntries.actorId, userId));
    const actions = rows.map((r) => r.action);
    expect(actions.filter((a) => a === 'recovery_code_used')).toHaveLength(2);
    expect(actions).toContain('recovery_codes_generated');
    expect(actions).toContain('factor_verification_failed');
    expect(JSON.stringify(rows)).not.toContain(u.codes[0]);

    const mail = await t.inbox.waitFor(u.email, (m) => /recovery code/i.test(m.subject));
    expect(mail.subject).toBe('A recovery code was used on your Namaa account');
    expect(mail.text).toContain(u.email);
    expect(mail.links).toEqual([]);
    for (const code of u.codes) expect(mail.text).not.toContain(code);
  });

  it("mails the notice in the owner's language (Arabic)", async () => {
    const u = await withCodes({ locale: 'ar' });
    const { token } = await passwordStep(u.email);
    expect((await recoveryCodes(t, token).verify(u.codes[3] as string)).error).toBeNull();
    const mail = await t.inbox.waitFor(u.email, (m) => m.subject.includes('رمز استرداد'));
    expect(mail.subject).toBe('استُخدم رمز استرداد في حسابك في نماء');
    expect(mail.html).toMatch(/<html[^>]* dir="rtl"/);
  });

  it('20 parallel uses of one code give exactly one session', async () => {
    const u = await withCodes();
    const { token } = await passwordStep(u.email);
    const code = u.codes[2] as string;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(t, token, 'POST', '/factors/recovery-codes/verify', { code })),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect([422, 429]).toContain(r.status);
      expect(['mfa_verification_failed', 'mfa_recovery_codes_locked']).toContain(r.body.code);
    }
    expect((await recoveryCodes(t, u.aal2).getStatus()).data?.remaining).toBe(9);
  });

  it('two sessions racing with one code: one session', async () => {
    const u = await withCodes();
    const a = await passwordStep(u.email);
    const b = await passwordStep(u.email);
    const code = u.codes[4] as string;
    const [ra, rb] = await Promise.all([
      call(t, a.token, 'POST', '/factors/recovery-codes/verify', { code }),
      call(t, b.token, 'POST', '/factors/recovery-codes/verify', { code }),
    ]);
    expect([ra.status, rb.status].filter((s) => s === 200)).toHaveLength(1);
  });

  it(`locks after ${MAX_FAILED} wrong codes (even the right code is refused), then lets the right one in`, async () => {
    const u = await withCodes();
    const { token } = await passwordStep(u.email);
    const rc = recoveryCodes(t, token);
    for (let i = 0; i < MAX_FAILED; i++) {
      const wrong = await rc.verify('aaaabbbbccccdddd');
      expect(wrong.status).toBe(422);
      expect(wrong.error?.code).toBe('mfa_verification_failed');
    }
    const locked = await call(t, token, 'POST', '/factors/recovery-codes/verify', { code: u.codes[0] });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('mfa_recovery_codes_locked');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, LOCKOUT_SECONDS * 1000 + 200));
    expect((await rc.verify(u.codes[0] as string)).error).toBeNull();
    // The code was not spent by the refused attempt while locked: 9 left after the one use.
    expect((await recoveryCodes(t, u.aal2).getStatus()).data?.remaining).toBe(9);
  });

  it('answers a user without recovery codes with 404, and no session with 401', async () => {
    const u = await userWithTotp();
    const { token } = await passwordStep(u.email);
    const r = await recoveryCodes(t, token).verify('aaaabbbbccccdddd');
    expect(r.status).toBe(404);
    expect(r.error?.code).toBe('mfa_factor_not_found');
    const anon = await call(t, undefined, 'POST', '/factors/recovery-codes/verify', { code: 'x' });
    expect(anon.status).toBe(401);
  });
});

describe('regenerate and delete', () => {
  it('regenerate replaces the set: every old code stops working, the new ones work, same factor', async () => {
    const u = await withCodes();
    const regen = await recoveryCodes(t, u.aal2).regenerate();
    expect(regen.error).toBeNull();
    expect(regen.data?.id).toBe(u.factorId);
    expect(regen.data?.codes).toHaveLength(10);
    for (const code of regen.data?.codes ?? []) expect(u.codes).not.toContain(code);
    expect((await recoveryCodes(t, u.aal2).getStatus()).data).toMatchObject({ total: 10, remaining: 10 });
    const { token } = await passwordStep(u.email);
    expect((await recoveryCodes(t, token).verify(u.codes[0] as string)).status).toBe(422);
    expect((await recoveryCodes(t, token).verify(regen.data?.codes[0] as string)).error).toBeNull();
  });

  it('DELETE removes the factor and its codes; the generic factor endpoints refuse it', async () => {
    const u = await withCodes();
    // GoTrue #2787: not through DELETE /factors/{id}, nor challenged like another factor.
    const generic = await call(t, u.aal2, 'DELETE', `/factors/${u.factorId}`);
    expect(generic.status).toBe(422);
    expect(generic.body.code).toBe('validation_failed');
    const challenge = await call(t, u.aal2, 'POST', `/factors/${u.factorId}/challenge`, {});
    expect(challenge.status).toBe(422);

    const del = await recoveryCodes(t, u.aal2).unenroll();
    expect(del.data).toEqual({ id: u.factorId });
    expect((await recoveryCodes(t, u.aal2).getStatus()).status).toBe(404);
    const { token } = await passwordStep(u.email);
    expect((await recoveryCodes(t, token).verify(u.codes[0] as string)).status).toBe(404);
  });

  it('the last real factor cannot go while recovery codes remain (mfa_recovery_codes_sole_factor)', async () => {
    const u = await withCodes();
    const refused = await call(t, u.aal2, 'DELETE', `/factors/${u.totpId}`);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('mfa_recovery_codes_sole_factor');
    // After the codes are deleted, the factor may go.
    expect((await recoveryCodes(t, u.aal2).unenroll()).error).toBeNull();
    expect((await call(t, u.aal2, 'DELETE', `/factors/${u.totpId}`)).status).toBe(200);
  });
});

describe("the admin API's factor delete", () => {
  const adminCall = async (method: string, path: string) => {
    const res = await t.api(path, {
      method,
      headers: { apikey: SERVICE_KEY, authorization: `Bearer ${SERVICE_KEY}` },
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };

  it('deleting the last verified factor deletes the codes too: none left, none reaches aal2', async () => {
    const u = await withCodes();
    const userId = decodeJwt(u.aal2).sub as string;
    // A session that reached aal2 with a code falls back when the codes go.
    const viaCode = await passwordStep(u.email);
    const raised = await recoveryCodes(t, viaCode.token).verify(u.codes[1] as string);
    expect(raised.error).toBeNull();
    // (After that step-up: reaching aal2 ends the user's other aal1 sessions.)
    const pending = await passwordStep(u.email);

    const del = await adminCall('DELETE', `/admin/users/${userId}/factors/${u.totpId}`);
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(u.totpId);

    const status = await recoveryCodes(t, pending.token).getStatus();
    expect(status.status).toBe(404);
    expect(status.error?.code).toBe('mfa_factor_not_found');
    const verify = await recoveryCodes(t, pending.token).verify(u.codes[0] as string);
    expect(verify.status).toBe(404);
    expect(verify.data).toBeNull();
    expect((await adminCall('GET', `/admin/users/${userId}/factors`)).body).toEqual([]);
    const refreshed = await t.api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: (raised.data as Json).refresh_token }),
    });
    expect(refreshed.status).toBe(200);
    const claims = decodeJwt(((await refreshed.json()) as Json).access_token as string);
    expect(claims.aal).toBe('aal1');
    expect(JSON.stringify(claims.amr)).not.toContain('recovery_code');
    const audit = await t.server.deps.db
      .select()
      .from(auditLogEntries)
      .where(eq(auditLogEntries.action, 'factor_deleted'));
    expect(audit.find((a) => JSON.stringify(a.payload).includes(u.totpId))?.payload).toMatchObject({
      recovery_codes_deleted: u.factorId,
    });
  });

  it('a verified factor still left keeps the codes', async () => {
    const u = await withCodes();
    const userId = decodeJwt(u.aal2).sub as string;
    const second = await call(t, u.aal2, 'POST', '/factors', {
      factor_type: 'totp',
      friendly_name: 'tablet',
    });
    expect(second.status).toBe(200);
    const ch = await call(t, u.aal2, 'POST', `/factors/${second.body.id}/challenge`, {});
    const ok = await call(t, u.aal2, 'POST', `/factors/${second.body.id}/verify`, {
      challenge_id: ch.body.id,
      code: await totp(second.body.totp.secret as string),
    });
    expect(ok.status).toBe(200);
    expect((await adminCall('DELETE', `/admin/users/${userId}/factors/${u.totpId}`)).status).toBe(200);
    expect((await recoveryCodes(t, u.aal2).getStatus()).data).toMatchObject({
      id: u.factorId,
      remaining: 10,
    });
  });
});

describe('hostile input: a clear 4xx in GoTrue shape, never a 5xx', () => {
  it('verify and generate bodies', async () => {
    const u = await withCodes();
    const { token } = await passwordStep(u.email);
    const cases: Array<[unknown, number]> = [
      [{}, 400],
      [{ code: 12345678 }, 400],
      [{ code: null }, 400],
      [{ code: '' }, 400],
      [{ code: 'x'.repeat(65) }, 400],
      [{ code: ['a'] }, 400],
      ['{"code": "abc', 400],
      [{ code: 'short' }, 422],
      [{ code: "'; drop table mfa_recovery_codes; --" }, 422],
      // NUL is refused by the service's JSON reader before any handler.
      [{ code: '\u0000\u0000\u0000\u0000aaaabbbbccccdddd' }, 400],
      [{ code: 'ÄÖÜäöüßÄÖÜäöüßx' }, 422],
    ];
    for (const [body, status] of cases) {
      const r = await call(t, token, 'POST', '/factors/recovery-codes/verify', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(typeof r.body.code).toBe('string');
      expect(typeof r.body.message).toBe('string');
      // Do not let the wrong guesses above lock the lockout test's users: this user is its own.
      if (r.status === 429) break;
    }
    for (const body of [{ friendly_name: 'n'.repeat(300) }, { friendly_name: 42 }, '[1,2']) {
      const r = await call(t, u.aal2, 'POST', '/factors/recovery-codes', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('switched off', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer({
      MAILER_AUTOCONFIRM: 'true',
      MFA_RECOVERY_CODES_ENROLL_ENABLED: 'false',
      MFA_RECOVERY_CODES_VERIFY_ENABLED: 'false',
    });
  }, 120_000);
  afterAll(async () => {
    await off?.close();
  });

  it("answers GoTrue's _disabled codes", async () => {
    const { data } = await off.client().auth.signUp({ email: uniqueEmail('rc-off'), password: PASSWORD });
    const token = data.session?.access_token as string;
    const rc = recoveryCodes(off, token);
    const gen = await rc.generate();
    expect(gen.status).toBe(422);
    expect(gen.error?.code).toBe('mfa_recovery_codes_enroll_disabled');
    expect((await rc.regenerate()).error?.code).toBe('mfa_recovery_codes_enroll_disabled');
    const ver = await rc.verify('aaaabbbbccccdddd');
    expect(ver.status).toBe(422);
    expect(ver.error?.code).toBe('mfa_recovery_codes_verify_disabled');
  });
});
