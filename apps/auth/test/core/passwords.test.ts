// Password policy (issue 6): the bundled common-password list, the account's own email and the brand
// name are refused with GoTrue's 422 weak_password / reasons ["pwned"], on by default and offline.
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { commonPasswordCount, isCommonPassword, resemblesIdentity } from '../../src/core/common-passwords.ts';
import { passwordProblems } from '../../src/core/password-policy.ts';
import {
  argon2Load,
  argon2ParamsAcceptable,
  hashPassword,
  verifyPassword,
} from '../../src/crypto/passwords.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

describe('common-password list', () => {
  it('bundles at least the top 10,000 passwords', () => {
    expect(commonPasswordCount()).toBeGreaterThanOrEqual(10_000);
  });

  it('matches list entries case-insensitively and after NFKC, and leaves strong ones alone', () => {
    for (const p of [
      '123456',
      'password',
      'qwerty',
      'PassWord',
      'iloveyou',
      'football',
      'abc123',
      '１２３４５６',
    ])
      expect(isCommonPassword(p), p).toBe(true);
    for (const p of ['correct horse', 'secret-pass', 'ورد الربيع', 'tr0ub4dor&3-x'])
      expect(isCommonPassword(p), p).toBe(false);
  });

  it('recognises the email, its local part and the brand name, give or take digits and symbols', () => {
    expect(resemblesIdentity('sara.ali@example.com', 'sara.ali@example.com')).toBe(true);
    expect(resemblesIdentity('Sara.Ali', 'sara.ali@example.com')).toBe(true);
    expect(resemblesIdentity('saraali1990!', 'sara.ali@example.com')).toBe(true);
    expect(resemblesIdentity('Namaa2025!', undefined)).toBe(true);
    expect(resemblesIdentity('نماء١٢٣', undefined)).toBe(true);
    expect(resemblesIdentity('namaa grows my garden', undefined)).toBe(false);
    expect(resemblesIdentity('correct horse', 'sara@example.com')).toBe(false);
  });

  it('is off only when the policy says so; defaults to on in the configuration', () => {
    expect(passwordProblems('password', { minLength: 6, maxLength: 100 }).reasons).toEqual([]);
    expect(
      passwordProblems('password', { minLength: 6, maxLength: 100, rejectCommon: true }).reasons,
    ).toEqual(['pwned']);
    expect(passwordProblems('12345', { minLength: 6, maxLength: 100, rejectCommon: true }).reasons).toEqual([
      'length',
      'pwned',
    ]);
    expect(loadConfig({}).PASSWORD_REJECT_COMMON).toBe(true);
    expect(loadConfig({ PASSWORD_REJECT_COMMON: 'false' }).PASSWORD_REJECT_COMMON).toBe(false);
  });
});

describe('argon2 memory bound', () => {
  it('runs at most one hash per core; the rest wait in line and all complete', async () => {
    const stored = await hashPassword('bounded-password-1');
    const cores = availableParallelism();
    const n = cores + 6;
    const all = Promise.all(Array.from({ length: n }, () => verifyPassword(stored, 'bounded-password-1')));
    await new Promise((r) => setImmediate(r));
    expect(argon2Load()).toEqual({ running: cores, waiting: n - cores });
    expect((await all).every((r) => r.ok)).toBe(true);
    expect(argon2Load()).toEqual({ running: 0, waiting: 0 });
  });
});

describe('imported hash parameters (hash-parameter DoS)', () => {
  it('refuses argon2 hashes whose cost is beyond GoTrue caps, before any work', async () => {
    const own = await hashPassword('correct horse');
    expect(argon2ParamsAcceptable(own)).toBe(true);
    expect((await verifyPassword(own, 'correct horse')).ok).toBe(true);
    const huge = own.replace(/m=\d+/, 'm=4194304');
    const slow = own.replace(/t=\d+/, 't=1000');
    const wide = own.replace(/p=\d+/, 'p=64');
    for (const h of [huge, slow, wide, '$argon2id$v=19$garbage']) {
      expect(argon2ParamsAcceptable(h)).toBe(false);
      const started = performance.now();
      expect((await verifyPassword(h, 'correct horse')).ok).toBe(false);
      expect(performance.now() - started).toBeLessThan(50); // refused, not computed
    }
  });
});

describe('through the API (supabase-js)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a common password at sign-up with 422 weak_password and reasons ["pwned"]', async () => {
    const email = uniqueEmail('common');
    const { data, error } = await t.client().auth.signUp({ email, password: 'iloveyou' });
    expect(data.user).toBeNull();
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('weak_password');
    expect((error as unknown as { reasons: string[] }).reasons).toEqual(['pwned']);
    // Nothing was created: the same address signs up with a good password afterwards.
    const ok = await t.client().auth.signUp({ email, password: 'correct horse' });
    expect(ok.error).toBeNull();
  });

  it('refuses the own email local part and the brand name, in both wire formats', async () => {
    const email = uniqueEmail('layla');
    const local = email.split('@')[0] as string;
    const own = await t.client().auth.signUp({ email, password: `${local.toUpperCase()}!` });
    expect(own.error?.code).toBe('weak_password');
    const legacy = await t.api('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: uniqueEmail(), password: 'Namaa2025' }),
    });
    expect(legacy.status).toBe(422);
    expect(await legacy.json()).toMatchObject({
      code: 422,
      error_code: 'weak_password',
      weak_password: { reasons: ['pwned'] },
    });
  });

  it('refuses a common password on password change, and keeps the old one', async () => {
    const email = uniqueEmail('change');
    const sb = t.client();
    expect((await sb.auth.signUp({ email, password: 'correct horse' })).error).toBeNull();
    const change = await sb.auth.updateUser({ password: 'qwerty123' });
    expect(change.error?.code).toBe('weak_password');
    // The old password still works, the common one was never stored.
    const signIn = await t.client().auth.signInWithPassword({ email, password: 'correct horse' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.weakPassword ?? null).toBeNull();
  });
});

describe('switched off explicitly', () => {
  it('accepts a listed password when PASSWORD_REJECT_COMMON=false (length still enforced)', async () => {
    const t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', PASSWORD_REJECT_COMMON: 'false' });
    try {
      const ok = await t.client().auth.signUp({ email: uniqueEmail(), password: 'password' });
      expect(ok.error).toBeNull();
      const short = await t.client().auth.signUp({ email: uniqueEmail(), password: '12345' });
      expect((short.error as unknown as { reasons: string[] }).reasons).toEqual(['length']);
    } finally {
      await t.close();
    }
  });
});
