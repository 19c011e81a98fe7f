// before_user_created and after_user_created where GoTrue calls them besides the email sign-up
// (issue #27): the phone + password sign-up, the admin invitation (POST /invite, supabase-js
// `admin.inviteUserByEmail`) and generate_link's links that make an account; never
// `admin.createUser`. A real HTTP hook endpoint that verifies each Standard Webhooks signature
// refuses some candidates: the refusal must reach the client as the hook wrote it, with no account
// made, and an accepted account must be announced once, with the id the first hook was shown.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../../src/db/schema.ts';
import { type HookCall, type HookServer, startHookServer } from '../../support/hook-server.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const SERVICE_KEY = 'sb_secret_user_created_hooks_0123456789abcdef';
const PASSWORD = 'Hook-Created-Pass-5521';
/** Numbers the hook refuses start with this (E.164 digits, a fictional US range as phone-password.test.ts uses). */
const REFUSED_PREFIX = '15569';

let hook: HookServer;
let t: TestServer;
let admin: SupabaseClient['auth']['admin'];
let nextNumber = 0;
const base = Date.now() % 10_000;
/** A fresh 11-digit number under `prefix` (5 digits). */
const phoneFrom = (prefix: string) =>
  `+${prefix}${String(base).padStart(4, '0')}${String(nextNumber++ % 100).padStart(2, '0')}`;

beforeAll(async () => {
  hook = await startHookServer();
  const env: Record<string, string> = {};
  for (const n of ['BEFORE_USER_CREATED', 'AFTER_USER_CREATED']) {
    env[`HOOK_${n}_ENABLED`] = 'true';
    env[`HOOK_${n}_URI`] = hook.url;
    env[`HOOK_${n}_SECRETS`] = hook.secret;
  }
  t = await startTestServer({
    ...env,
    SERVICE_ROLE_KEY: SERVICE_KEY,
    EXTERNAL_PHONE_ENABLED: 'true',
    SMS_PROVIDER: 'dev',
    SMS_MAX_FREQUENCY: '0',
    RATE_LIMIT_SMS_SENT: '100000',
  });
  admin = createClient(t.url, SERVICE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  }).auth.admin;
  hook.handle((body) => {
    const user = (body.user ?? {}) as { email?: string; phone?: string };
    const refused = (user.email ?? '').startsWith('closed-') || (user.phone ?? '').startsWith(REFUSED_PREFIX);
    if ((body.metadata as { name: string }).name === 'before-user-created' && refused)
      return { body: { error: { http_code: 403, message: 'Sign-ups from here are closed' } } };
    return { status: 204 };
  });
});
afterAll(async () => {
  await t?.close();
  await hook?.close();
});

/** The calls of one hook about one user, matched by email or phone. */
function callsFor(name: string, match: { email?: string; phone?: string }): HookCall[] {
  return hook.calls.filter((c) => {
    if ((c.body.metadata as { name: string }).name !== name) return false;
    const user = c.body.user as { email?: string; phone?: string };
    return match.email ? user.email === match.email : user.phone === match.phone;
  });
}

async function usersWhere(column: 'email' | 'phone', value: string) {
  return t.server.deps.db
    .select()
    .from(users)
    .where(eq(column === 'email' ? users.email : users.phone, value));
}

describe('phone + password sign-up', () => {
  it('a refusal reaches the client as the hook wrote it, and no account is made', async () => {
    const phone = phoneFrom(REFUSED_PREFIX);
    const { data, error } = await t.client().auth.signUp({ phone, password: PASSWORD });
    expect(error).toMatchObject({ status: 403, message: 'Sign-ups from here are closed' });
    expect(data.user).toBeNull();
    const digits = phone.slice(1);
    expect(callsFor('before-user-created', { phone: digits })).toHaveLength(1);
    expect(callsFor('after-user-created', { phone: digits })).toHaveLength(0);
    expect(await usersWhere('phone', digits)).toHaveLength(0);
  });

  it('an accepted sign-up is shown to both hooks with one id, after_user_created once', async () => {
    const phone = phoneFrom('15561');
    const digits = phone.slice(1);
    const { data, error } = await t
      .client()
      .auth.signUp({ phone, password: PASSWORD, options: { data: { plan: 'pro' } } });
    expect(error).toBeNull();
    const [before] = callsFor('before-user-created', { phone: digits });
    expect(before?.verified).toBe(true);
    expect(before?.body.user).toMatchObject({
      id: data.user?.id,
      phone: digits,
      email: '',
      app_metadata: { provider: 'phone', providers: ['phone'] },
      user_metadata: { plan: 'pro' },
      is_anonymous: false,
    });
    expect(JSON.stringify(before?.body)).not.toMatch(/password|argon2/i);
    // A second sign-up of the still-pending number takes it over: no new account, no hook.
    expect((await t.client().auth.signUp({ phone, password: PASSWORD })).error).toBeNull();
    expect(callsFor('before-user-created', { phone: digits })).toHaveLength(1);
    const after = callsFor('after-user-created', { phone: digits });
    expect(after).toHaveLength(1);
    expect(after[0]?.body.user).toMatchObject({ id: data.user?.id, phone: digits });
    expect(await usersWhere('phone', digits)).toHaveLength(1);
  });
});

describe('admin invitation', () => {
  it('inviteUserByEmail: a refusal reaches the caller and no account (nor mail) is made', async () => {
    const email = uniqueEmail('closed');
    const { data, error } = await admin.inviteUserByEmail(email);
    expect(error).toMatchObject({ status: 403, message: 'Sign-ups from here are closed' });
    expect(data.user).toBeNull();
    expect(callsFor('after-user-created', { email })).toHaveLength(0);
    expect(await usersWhere('email', email)).toHaveLength(0);
    expect(t.inbox.all().some((m) => m.to === email)).toBe(false);
  });

  it('an accepted invitation: one id for both hooks, after_user_created once, none on re-invite', async () => {
    const email = uniqueEmail('invited');
    const { data, error } = await admin.inviteUserByEmail(email, { data: { team: 'blue' } });
    expect(error).toBeNull();
    const before = callsFor('before-user-created', { email });
    expect(before).toHaveLength(1);
    expect(before[0]?.body.user).toMatchObject({
      id: data.user?.id,
      email,
      app_metadata: { provider: 'email' },
      user_metadata: { team: 'blue' },
    });
    await t.inbox.waitFor(email);
    // Re-inviting the pending invitee creates nothing: no hook either time.
    expect((await admin.inviteUserByEmail(email)).error).toBeNull();
    expect(callsFor('before-user-created', { email })).toHaveLength(1);
    const after = callsFor('after-user-created', { email });
    expect(after).toHaveLength(1);
    expect(after[0]?.body.user).toMatchObject({ id: data.user?.id, email });
    expect(after[0]?.verified).toBe(true);
  });

  it('generate_link of an invitation or sign-up runs the hooks too; admin.createUser does not', async () => {
    const refused = await admin.generateLink({ type: 'invite', email: uniqueEmail('closed') });
    expect(refused.error).toMatchObject({ status: 403, message: 'Sign-ups from here are closed' });
    const refusedSignup = await admin.generateLink({
      type: 'signup',
      email: uniqueEmail('closed'),
      password: PASSWORD,
    });
    expect(refusedSignup.error).toMatchObject({ status: 403 });

    const email = uniqueEmail('linked');
    const link = await admin.generateLink({ type: 'magiclink', email });
    expect(link.error).toBeNull();
    expect(callsFor('before-user-created', { email })[0]?.body.user).toMatchObject({
      id: link.data.user?.id,
    });
    expect(callsFor('after-user-created', { email })).toHaveLength(1);

    const created = uniqueEmail('closed-but-admin');
    const byAdmin = await admin.createUser({ email: created, password: PASSWORD, email_confirm: true });
    expect(byAdmin.error).toBeNull();
    expect(callsFor('before-user-created', { email: created })).toHaveLength(0);
    expect(callsFor('after-user-created', { email: created })).toHaveLength(0);
  });
});
