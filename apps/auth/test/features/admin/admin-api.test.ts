// The admin API through supabase-js's own admin client (`createClient(url, SERVICE_ROLE_KEY)
// .auth.admin.*`), against the real service, SMTP inbox and database (PGlite, or PostgreSQL when
// DATABASE_URL is set): every endpoint, authorization, bad input, bans and concurrency.

import { hash as argon2Hash } from '@node-rs/argon2';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import bcrypt from 'bcryptjs';
import { desc, eq, sql } from 'drizzle-orm';
import { generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLowS } from '../../../src/crypto/jwt.ts';
import { auditLogEntries, mailOutbox, users } from '../../../src/db/schema.ts';
import { listSigningKeys } from '../../../src/db/signing-keys.repo.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const SERVICE_KEY = 'sb_secret_admin_api_test_key_0123456789abcdef';
const PASSWORD = 'admin-test-Pass-91';

let t: TestServer;
let admin: SupabaseClient['auth']['admin'];

const noSession = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false };

/** A supabase-js client whose every request carries `Authorization: Bearer <token>` (a JWT caller). */
function clientWithToken(token: string, apikey = t.anonKey): SupabaseClient {
  return createClient(t.url, apikey, {
    auth: noSession,
    global: { headers: { Authorization: `Bearer ${token}` } },
  });
}

/**
 * A JWT signed with the service's own active key (or, `foreign`, with a key of the same kid that
 * the service never had). No aud, sub or exp unless given: a GoTrue admin token.
 */
async function signedJwt(claims: Record<string, unknown>, opts: { foreign?: boolean } = {}): Promise<string> {
  const keys = await listSigningKeys(t.server.deps.db);
  const key = keys.find((k) => k.status === 'active');
  if (!key) throw new Error('no active key');
  const privateKey = opts.foreign
    ? (await generateKeyPair('ES256')).privateKey
    : await importJWK(key.privateJwk as JWK, 'ES256');
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .sign(privateKey);
  return withLowS(jwt);
}

async function adminFetch(path: string, init: RequestInit = {}, token = SERVICE_KEY) {
  const res = await fetch(`${t.url}/auth/v1${path}`, {
    ...init,
    headers: {
      apikey: SERVICE_KEY,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

function expectGoTrueError(
  r: { status: number; text: string; json: unknown },
  code: string,
  status?: number,
) {
  if (status !== undefined) expect(r.status).toBe(status);
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
  expect(r.json).toMatchObject({ code: r.status, error_code: code, msg: expect.any(String) });
  expect(r.text).not.toMatch(/at .*\.ts:\d+|node_modules|stack/i);
}

async function createConfirmed(prefix: string, extra: Record<string, unknown> = {}) {
  const email = uniqueEmail(prefix);
  const { data, error } = await admin.createUser({
    email,
    password: PASSWORD,
    email_confirm: true,
    ...extra,
  });
  expect(error).toBeNull();
  return { email, user: data.user! };
}

async function signIn(email: string, password = PASSWORD) {
  return t.client().auth.signInWithPassword({ email, password });
}

beforeAll(async () => {
  t = await startTestServer({
    SERVICE_ROLE_KEY: SERVICE_KEY,
    JWT_ADMIN_ROLES: 'service_role,supabase_admin,ops',
  });
  admin = createClient(t.url, SERVICE_KEY, { auth: noSession }).auth.admin;
});
afterAll(async () => {
  await t?.close();
});

describe('POST /admin/users', () => {
  it('creates a confirmed user with metadata, role and id who can sign in', async () => {
    const email = uniqueEmail('create');
    const id = crypto.randomUUID();
    const { data, error } = await admin.createUser({
      id,
      email,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { name: 'Layla' },
      app_metadata: { plan: 'pro', provider: 'evil' },
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      id,
      email,
      phone: '',
      role: 'authenticated',
      aud: 'authenticated',
      user_metadata: { name: 'Layla', email_verified: true },
      // The provider keys are the service's, whatever the caller sent.
      app_metadata: { plan: 'pro', provider: 'email', providers: ['email'] },
      email_confirmed_at: expect.any(String),
      is_anonymous: false,
    });
    expect(data.user?.identities?.[0]).toMatchObject({ provider: 'email', user_id: id });
    const signedIn = await signIn(email);
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.id).toBe(id);
  });

  it('creates an unconfirmed user who cannot sign in until confirmed', async () => {
    const email = uniqueEmail('unconfirmed');
    const { data } = await admin.createUser({ email, password: PASSWORD });
    expect(data.user?.email_confirmed_at).toBeUndefined();
    expect((await signIn(email)).error?.code).toBe('email_not_confirmed');
    await admin.updateUserById(data.user!.id, { email_confirm: true });
    expect((await signIn(email)).error).toBeNull();
    // `email_confirm: false` never unconfirms (GoTrue: only `true` does anything).
    const again = await admin.updateUserById(data.user!.id, { email_confirm: false });
    expect(again.data.user?.email_confirmed_at).toBeDefined();
    expect((await signIn(email)).error).toBeNull();
  });

  it('imports bcrypt and argon2 hashes that then verify at sign-in', async () => {
    const bcryptEmail = uniqueEmail('bcrypt');
    const bcryptHash = await bcrypt.hash(PASSWORD, 10);
    const a = await admin.createUser({ email: bcryptEmail, password_hash: bcryptHash, email_confirm: true });
    expect(a.error).toBeNull();
    expect((await signIn(bcryptEmail)).error).toBeNull();
    expect((await signIn(bcryptEmail, 'wrong-password-1')).error?.code).toBe('invalid_credentials');

    const argonEmail = uniqueEmail('argon');
    const argonHash = await argon2Hash(PASSWORD, { memoryCost: 8192, timeCost: 1, parallelism: 1 });
    const b = await admin.createUser({ email: argonEmail, password_hash: argonHash, email_confirm: true });
    expect(b.error).toBeNull();
    expect((await signIn(argonEmail)).error).toBeNull();
  });

  it('refuses what GoTrue refuses', async () => {
    const { email, user } = await createConfirmed('dup');
    const dupEmail = await admin.createUser({ email: email.toUpperCase(), password: PASSWORD });
    expect(dupEmail.error).toMatchObject({ status: 422, code: 'email_exists' });
    const dupId = await admin.createUser({ id: user.id, email: uniqueEmail('dupid'), password: PASSWORD });
    expect(dupId.error).toMatchObject({ status: 422, code: 'user_already_exists' });
    const phone = `1555${Math.floor(Math.random() * 1e7)}`.padEnd(11, '0');
    expect((await admin.createUser({ phone, phone_confirm: true })).error).toBeNull();
    const dupPhone = await admin.createUser({ phone: `+${phone}` });
    expect(dupPhone.error).toMatchObject({ status: 422, code: 'phone_exists' });
    const weak = await admin.createUser({ email: uniqueEmail('weak'), password: '123' });
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' });
    const both = await admin.createUser({
      email: uniqueEmail('both'),
      password: PASSWORD,
      password_hash: await bcrypt.hash(PASSWORD, 4),
    });
    expect(both.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const badHash = await admin.createUser({ email: uniqueEmail('badhash'), password_hash: 'md5:abc' });
    expect(badHash.error).toMatchObject({ status: 400, code: 'validation_failed' });
    // An argon2 hash whose cost would make every sign-in allocate 4 GiB is refused, not stored.
    const costly = '$argon2id$v=19$m=4194304,t=2,p=1$c29tZXNhbHQ$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI';
    const heavy = await admin.createUser({ email: uniqueEmail('heavy'), password_hash: costly });
    expect(heavy.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const nothing = await admin.createUser({ password: PASSWORD });
    expect(nothing.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const badBan = await admin.createUser({ email: uniqueEmail('ban'), ban_duration: 'forever' });
    expect(badBan.error).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});

describe('GET /admin/users', () => {
  it('pages with X-Total-Count and a Link header the client reads, "" meaning the default', async () => {
    // At least 5 users, so page 2 of 2 per page has a next page whatever else ran before.
    for (let i = 0; i < 5; i++) await createConfirmed(`page${i}`);
    const listed = await admin.listUsers({ page: 1, perPage: 2 });
    expect(listed.error).toBeNull();
    if (!('total' in listed.data)) throw new Error('no pagination');
    const data = listed.data;
    expect(data.users).toHaveLength(2);
    // Each listed user carries its identities (read for the whole page at once).
    for (const u of data.users) expect(u.identities?.[0]).toMatchObject({ provider: 'email', user_id: u.id });
    expect(data.aud).toBe('authenticated');
    expect(data.total).toBeGreaterThanOrEqual(5);
    expect(data.nextPage).toBe(2);
    expect(data.lastPage).toBe(Math.ceil(data.total / 2));

    // What the client sends when the caller gives no page: both parameters, empty.
    const raw = await adminFetch('/admin/users?page=&per_page=');
    expect(raw.status).toBe(200);
    expect(Number(raw.headers.get('x-total-count'))).toBe(data.total);
    expect(raw.json.users.length).toBe(Math.min(50, data.total));
    const link = raw.headers.get('link') ?? '';
    expect(link).toMatch(/^<\/auth\/v1\/admin\/users\?page=\d+&per_page=50>; rel="last"$/);

    const second = await adminFetch('/admin/users?page=2&per_page=2');
    expect(second.headers.get('link')).toMatch(
      /<\/auth\/v1\/admin\/users\?page=3&per_page=2>; rel="next", </,
    );
    // Newest first, no overlap between pages.
    const firstIds = data.users.map((u) => u.id);
    for (const u of second.json.users) expect(firstIds).not.toContain(u.id);
  });

  it('filters by an email substring, with % and _ taken literally', async () => {
    const tag = `flt${Math.random().toString(36).slice(2, 8)}`;
    await createConfirmed(`${tag}-a`);
    await createConfirmed(`${tag}-b`);
    const found = await adminFetch(`/admin/users?filter=${tag.toUpperCase()}`);
    expect(found.json.users.map((u: { email: string }) => u.email).sort()).toHaveLength(2);
    expect(found.headers.get('x-total-count')).toBe('2');
    expect((await adminFetch('/admin/users?filter=%25')).headers.get('x-total-count')).toBe('0');
  });

  it('answers bad pagination with 400', async () => {
    for (const q of [
      'page=-1',
      'page=0',
      'per_page=abc',
      'page=1.5',
      'per_page=0',
      'per_page=100000',
      'page=9'.repeat(20),
    ])
      expectGoTrueError(await adminFetch(`/admin/users?${q}`), 'validation_failed', 400);
  });

  it('exposes X-Total-Count and Link to a cross-origin browser', async () => {
    const res = await fetch(`${t.url}/auth/v1/admin/users`, {
      headers: { apikey: SERVICE_KEY, authorization: `Bearer ${SERVICE_KEY}`, origin: 'https://app.example' },
    });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    expect(exposed).toContain('x-total-count');
    expect(exposed).toContain('link');
  });
});

describe('GET/PUT/DELETE /admin/users/{id}', () => {
  it('gets a user, and answers 404 for an unknown one and for a malformed id', async () => {
    const { user } = await createConfirmed('get');
    const got = await admin.getUserById(user.id);
    expect(got.data.user?.id).toBe(user.id);
    const unknown = await adminFetch(`/admin/users/${crypto.randomUUID()}`);
    expectGoTrueError(unknown, 'user_not_found', 404);
    const malformed = await adminFetch('/admin/users/not-a-uuid');
    expectGoTrueError(malformed, 'validation_failed', 404);
  });

  it('updates email, password, role and metadata (merged; null deletes a key)', async () => {
    const { user } = await createConfirmed('upd', { user_metadata: { a: 1, b: 2 } });
    const newEmail = uniqueEmail('updated');
    const { data, error } = await admin.updateUserById(user.id, {
      email: newEmail,
      password: 'another-Pass-77',
      user_metadata: { b: null, c: 3 },
      app_metadata: { tier: 'gold' },
      role: 'editor',
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email: newEmail,
      role: 'editor',
      user_metadata: { a: 1, c: 3 },
      app_metadata: { provider: 'email', tier: 'gold' },
    });
    expect(data.user?.user_metadata).not.toHaveProperty('b');
    expect(data.user?.identities?.[0]?.identity_data?.email).toBe(newEmail);
    const signedIn = await signIn(newEmail, 'another-Pass-77');
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.session?.user.role).toBe('editor');
  });

  it('bans: no sign-in, no refresh, no use of an earlier access token; "none" lifts it', async () => {
    const { email, user } = await createConfirmed('ban');
    const before = await signIn(email);
    const session = before.data.session!;
    const banned = await admin.updateUserById(user.id, { ban_duration: '24h' });
    expect(banned.data.user?.banned_until).toBeDefined();
    expect((await signIn(email)).error).toMatchObject({ status: 400, code: 'user_banned' });
    const refresh = await t.client().auth.refreshSession({ refresh_token: session.refresh_token });
    expect(refresh.error).toMatchObject({ status: 400, code: 'user_banned' });
    const me = await t.client().auth.getUser(session.access_token);
    expect(me.error).toMatchObject({ status: 403, code: 'user_banned' });
    const lifted = await admin.updateUserById(user.id, { ban_duration: 'none' });
    expect(lifted.data.user?.banned_until).toBeUndefined();
    expect((await signIn(email)).error).toBeNull();
  });

  it('creates a user banned from the start (ban_duration on create)', async () => {
    const email = uniqueEmail('preban');
    const { data } = await admin.createUser({
      email,
      password: PASSWORD,
      email_confirm: true,
      ban_duration: '1h30m',
    });
    const until = Date.parse(data.user!.banned_until as string);
    expect(until - Date.now()).toBeGreaterThan(89 * 60_000);
    expect((await signIn(email)).error?.code).toBe('user_banned');
  });

  it('hard-deletes: the user, its sessions and refresh tokens are gone', async () => {
    const { email, user } = await createConfirmed('del');
    const { data: s } = await signIn(email);
    const deleted = await admin.deleteUser(user.id);
    expect(deleted.error).toBeNull();
    expectGoTrueError(await adminFetch(`/admin/users/${user.id}`), 'user_not_found', 404);
    const refresh = await t.client().auth.refreshSession({ refresh_token: s.session!.refresh_token });
    expect(refresh.error?.status).toBe(400);
    const again = await adminFetch(`/admin/users/${user.id}`, { method: 'DELETE', body: '{}' });
    expectGoTrueError(again, 'user_not_found', 404);
  });

  it('soft-deletes: the row stays with deleted_at, anonymised, and cannot sign in', async () => {
    const { email, user } = await createConfirmed('soft', { user_metadata: { name: 'x' } });
    const { data: s } = await signIn(email);
    expect((await admin.deleteUser(user.id, true)).error).toBeNull();
    const got = await adminFetch(`/admin/users/${user.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      id: user.id,
      email: '',
      deleted_at: expect.any(String),
      identities: [],
    });
    expect(got.json.user_metadata).toEqual({});
    expect((await signIn(email)).error?.code).toBe('invalid_credentials');
    const refresh = await t.client().auth.refreshSession({ refresh_token: s.session!.refresh_token });
    expect(refresh.error?.status).toBe(400);
    // The address is free again.
    expect((await admin.createUser({ email, password: PASSWORD })).error).toBeNull();
  });
});

describe('POST /admin/generate_link', () => {
  const verifyHash = (token_hash: string, type: string) =>
    t.client().auth.verifyOtp({ token_hash, type: type as 'signup' });

  it('signup: creates the user and a link that confirms and signs in', async () => {
    const email = uniqueEmail('gl-signup');
    const { data, error } = await admin.generateLink({
      type: 'signup',
      email,
      password: PASSWORD,
      options: { data: { from: 'link' }, redirectTo: `${t.url}/welcome` },
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, user_metadata: { from: 'link' } });
    expect(data.properties).toMatchObject({
      email_otp: expect.stringMatching(/^\d{6}$/),
      hashed_token: expect.any(String),
      redirect_to: `${t.url}/welcome`,
      verification_type: 'signup',
    });
    const link = new URL(data.properties?.action_link ?? '');
    expect(link.pathname).toBe('/auth/v1/verify');
    expect(link.searchParams.get('type')).toBe('signup');
    // No mail was written (let alone sent): the operator delivers the link.
    expect(await t.server.deps.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email))).toEqual(
      [],
    );
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${t.url}/welcome#access_token=`));
    expect((await signIn(email)).error).toBeNull();
    // A confirmed address cannot get another signup link.
    const again = await admin.generateLink({ type: 'signup', email, password: PASSWORD });
    expect(again.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('magiclink and recovery for an existing user; the code works as well as the hash', async () => {
    const { email } = await createConfirmed('gl-magic');
    const magic = await admin.generateLink({ type: 'magiclink', email });
    expect(magic.data.properties?.verification_type).toBe('magiclink');
    const signedIn = await verifyHash(magic.data.properties!.hashed_token, 'magiclink');
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.session?.user.email).toBe(email);

    const recovery = await admin.generateLink({ type: 'recovery', email });
    expect(recovery.data.properties?.verification_type).toBe('recovery');
    const byCode = await t
      .client()
      .auth.verifyOtp({ email, token: recovery.data.properties!.email_otp, type: 'recovery' });
    expect(byCode.error).toBeNull();
    // Used once.
    expect((await verifyHash(recovery.data.properties!.hashed_token, 'recovery')).error?.code).toBe(
      'otp_expired',
    );

    const unknown = await admin.generateLink({ type: 'recovery', email: uniqueEmail('nobody') });
    expect(unknown.error).toMatchObject({ status: 404, code: 'user_not_found' });
  });

  it('magiclink for an unknown address signs the address up', async () => {
    const email = uniqueEmail('gl-newmagic');
    const { data } = await admin.generateLink({ type: 'magiclink', email });
    expect(data.user?.email).toBe(email);
    expect(data.properties?.verification_type).toBe('signup');
    const v = await verifyHash(data.properties?.hashed_token ?? '', 'signup');
    expect(v.data.session?.user.email_confirmed_at).toBeDefined();
  });

  it('invite: an invited user who accepts through the link', async () => {
    const email = uniqueEmail('gl-invite');
    const { data } = await admin.generateLink({ type: 'invite', email, options: { data: { team: 'a' } } });
    expect(data.user).toMatchObject({ email, invited_at: expect.any(String), user_metadata: { team: 'a' } });
    expect(data.properties?.verification_type).toBe('invite');
    const v = await verifyHash(data.properties!.hashed_token, 'invite');
    expect(v.error).toBeNull();
    expect(v.data.session?.user.email).toBe(email);
  });

  it('email_change_current and email_change_new: the change applies once both are used', async () => {
    const { email, user } = await createConfirmed('gl-change');
    const newEmail = uniqueEmail('gl-changed');
    const current = await admin.generateLink({ type: 'email_change_current', email, newEmail });
    expect(current.error).toBeNull();
    expect(current.data.user?.new_email).toBe(newEmail);
    const next = await admin.generateLink({ type: 'email_change_new', email, newEmail });
    expect(next.data.properties?.verification_type).toBe('email_change');
    await verifyHash(current.data.properties!.hashed_token, 'email_change');
    const done = await verifyHash(next.data.properties!.hashed_token, 'email_change');
    expect(done.error).toBeNull();
    expect((await admin.getUserById(user.id)).data.user?.email).toBe(newEmail);
    const taken = await admin.generateLink({
      type: 'email_change_new',
      email: newEmail,
      newEmail: (await createConfirmed('gl-taken')).email,
    });
    expect(taken.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('refuses an unknown type, a missing email and a change without the new address', async () => {
    for (const body of [
      { type: 'nope', email: uniqueEmail('x') },
      { type: 'magiclink' },
      { type: 'email_change_new', email: uniqueEmail('x') },
      { type: 'signup', email: uniqueEmail('x') },
      { type: 'magiclink', email: 'not an email' },
    ])
      expectGoTrueError(
        await adminFetch('/admin/generate_link', { method: 'POST', body: JSON.stringify(body) }),
        'validation_failed',
        400,
      );
  });
});

describe('POST /invite', () => {
  it('mails the invitation; its link signs the user in (GET /verify type=invite)', async () => {
    const email = uniqueEmail('invite');
    const { data, error } = await admin.inviteUserByEmail(email, {
      data: { role: 'reviewer' },
      redirectTo: `${t.url}/accept`,
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email,
      invited_at: expect.any(String),
      user_metadata: { role: 'reviewer' },
    });
    const mail = await t.inbox.waitFor(email);
    expect(mail.subject).toMatch(/invited/i);
    const link = mail.links.find((l) => l.includes('/verify'))!;
    expect(new URL(link).searchParams.get('type')).toBe('invite');
    const res = await fetch(link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${t.url}/accept#access_token=`));
    const accessToken = new URLSearchParams(location.split('#')[1]).get('access_token')!;
    const me = await t.client().auth.getUser(accessToken);
    expect(me.data.user?.email_confirmed_at).toBeDefined();
    // An accepted invitation cannot be sent again.
    expect((await admin.inviteUserByEmail(email)).error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it("an invitation's 6-digit code (generate_link email_otp) verifies with type invite", async () => {
    // The invitation mail carries the link only (GoTrue's invite template); the code exists too.
    const email = uniqueEmail('invite-code');
    const { data } = await admin.generateLink({ type: 'invite', email });
    const v = await t
      .client()
      .auth.verifyOtp({ email, token: data.properties?.email_otp ?? '', type: 'invite' });
    expect(v.error).toBeNull();
    expect(v.data.session?.user.email).toBe(email);
  });
});

describe('POST /invite: mail quotas', () => {
  it('an invitation counts against the per-address mail floor: 429 over_email_send_rate_limit', async () => {
    const limited = await startTestServer({ SERVICE_ROLE_KEY: SERVICE_KEY, RATE_LIMIT_EMAIL_FLOOR: '60' });
    try {
      const limitedAdmin = createClient(limited.url, SERVICE_KEY, { auth: noSession }).auth.admin;
      const email = uniqueEmail('invite-floor');
      expect((await limitedAdmin.inviteUserByEmail(email)).error).toBeNull();
      const again = await limitedAdmin.inviteUserByEmail(email);
      expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
      expect((await limited.inbox.waitFor(email)).subject).toMatch(/invited/i);
    } finally {
      await limited.close();
    }
  });
});

describe('factors and sign-out', () => {
  it("lists a user's factors as a bare array and deletes one, answering the factor", async () => {
    const { email, user } = await createConfirmed('factors');
    const empty = await admin.mfa.listFactors({ userId: user.id });
    expect(empty.data?.factors).toEqual([]);
    const sb = t.client();
    await sb.auth.signInWithPassword({ email, password: PASSWORD });
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone app' });
    expect(enrolled.error).toBeNull();
    const raw = await adminFetch(`/admin/users/${user.id}/factors`);
    expect(Array.isArray(raw.json)).toBe(true);
    expect(raw.json).toEqual([
      expect.objectContaining({
        id: enrolled.data!.id,
        factor_type: 'totp',
        status: 'unverified',
        friendly_name: 'phone app',
      }),
    ]);
    const deleted = await admin.mfa.deleteFactor({ userId: user.id, id: enrolled.data!.id });
    // GoTrue's answer is the factor itself, which the client wraps once more.
    expect((deleted.data as unknown as { data: { id: string } }).data.id).toBe(enrolled.data!.id);
    expect((await admin.mfa.listFactors({ userId: user.id })).data?.factors).toEqual([]);
    const gone = await adminFetch(`/admin/users/${user.id}/factors/${enrolled.data!.id}`, {
      method: 'DELETE',
    });
    expectGoTrueError(gone, 'mfa_factor_not_found', 404);
    expectGoTrueError(await adminFetch(`/admin/users/${crypto.randomUUID()}/factors`), 'user_not_found', 404);
    expectGoTrueError(await adminFetch('/admin/users/nope/factors'), 'validation_failed', 404);
    expectGoTrueError(
      await adminFetch(`/admin/users/${user.id}/factors/nope`, { method: 'DELETE' }),
      'validation_failed',
      404,
    );
  });

  it('signs a user out everywhere with admin.signOut(jwt)', async () => {
    const { email } = await createConfirmed('signout');
    const one = (await signIn(email)).data.session!;
    const two = (await signIn(email)).data.session!;
    const { error } = await admin.signOut(one.access_token, 'global');
    expect(error).toBeNull();
    for (const s of [one, two]) {
      const r = await t.client().auth.refreshSession({ refresh_token: s.refresh_token });
      expect(r.error?.status).toBe(400);
    }
  });
});

describe('authorization', () => {
  it("refuses the anon key, a user's token and a JWT without an admin role: 403 not_admin", async () => {
    const anon = await t.client().auth.admin.listUsers();
    expect(anon.error).toMatchObject({ status: 403, code: 'not_admin', message: 'User not allowed' });
    const { email } = await createConfirmed('authz');
    const userToken = (await signIn(email)).data.session!.access_token;
    for (const client of [clientWithToken(userToken), clientWithToken(userToken, SERVICE_KEY)]) {
      const r = await client.auth.admin.listUsers();
      expect(r.error).toMatchObject({ status: 403, code: 'not_admin' });
    }
    const wrongRole = await signedJwt({ role: 'authenticated' });
    expect((await clientWithToken(wrongRole).auth.admin.listUsers()).error).toMatchObject({
      status: 403,
      code: 'not_admin',
    });
    const noRole = await signedJwt({ sub: 'x' });
    expect(
      (await clientWithToken(noRole).auth.admin.createUser({ email: uniqueEmail('x') })).error?.code,
    ).toBe('not_admin');
  });

  it('refuses an expired, a foreign-signed, a tampered and a malformed admin JWT: 403 bad_jwt', async () => {
    const expired = await signedJwt({ role: 'service_role', exp: Math.floor(Date.now() / 1000) - 60 });
    const foreign = await signedJwt({ role: 'service_role' }, { foreign: true });
    const good = await signedJwt({ role: 'user' });
    const [h, , s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ role: 'service_role' })).toString('base64url')}.${s}`;
    for (const token of [expired, foreign, tampered, 'not.a.jwt', 'abc']) {
      const r = await clientWithToken(token).auth.admin.listUsers();
      expect(r.error).toMatchObject({ status: 403, code: 'bad_jwt' });
    }
    expectGoTrueError(
      await adminFetch('/admin/users', { headers: { authorization: 'Basic abc' } }),
      'no_authorization',
      401,
    );
    // No key at all: the apikey guard answers first.
    const nokey = await fetch(`${t.url}/auth/v1/admin/users`);
    expect(nokey.status).toBe(401);
  });

  it('accepts a JWT whose role is in JWT_ADMIN_ROLES (no sub, aud or exp needed) and audits its sub', async () => {
    for (const role of ['service_role', 'supabase_admin', 'ops']) {
      const token = await signedJwt({ role });
      expect((await clientWithToken(token).auth.admin.listUsers({ perPage: 1 })).error).toBeNull();
    }
    const operator = crypto.randomUUID();
    const token = await signedJwt({
      role: 'supabase_admin',
      sub: operator,
      exp: Math.floor(Date.now() / 1000) + 60,
    });
    const email = uniqueEmail('audited');
    const { data } = await clientWithToken(token).auth.admin.createUser({ email, password: PASSWORD });
    const [row] = await t.server.deps.db
      .select()
      .from(auditLogEntries)
      .where(sql`${auditLogEntries.payload}->>'user_id' = ${data.user!.id}`);
    expect(row).toMatchObject({
      action: 'user_signedup',
      actorId: operator,
      payload: expect.objectContaining({
        actor: `jwt:${operator}`,
        actor_role: 'supabase_admin',
        user_email: email,
      }),
    });
    // A session named in an admin token must exist.
    const stale = await signedJwt({ role: 'service_role', session_id: crypto.randomUUID() });
    expectGoTrueError(await adminFetch('/admin/users', {}, stale), 'session_not_found', 403);
  });

  it('audits every admin action with the service key as the caller', async () => {
    const { user } = await createConfirmed('audit-all');
    await admin.updateUserById(user.id, { user_metadata: { x: 1 } });
    await admin.generateLink({ type: 'recovery', email: user.email! });
    await admin.deleteUser(user.id);
    const rows = await t.server.deps.db
      .select()
      .from(auditLogEntries)
      .where(sql`${auditLogEntries.payload}->>'user_id' = ${user.id}`)
      .orderBy(desc(auditLogEntries.createdAt));
    expect(rows.map((r) => r.action).sort()).toEqual(
      ['admin_link_generated', 'user_deleted', 'user_modified', 'user_signedup'].sort(),
    );
    for (const r of rows)
      expect(r.payload).toMatchObject({ actor: 'service_role_key', actor_role: 'service_role' });
    expect(JSON.stringify(rows)).not.toContain(SERVICE_KEY);
  });
});

describe('bad input', () => {
  const uuid = '00000000-0000-4000-8000-000000000000';
  const writes: Array<[string, string]> = [
    ['POST', '/admin/users'],
    ['PUT', `/admin/users/${uuid}`],
    ['DELETE', `/admin/users/${uuid}`],
    ['POST', '/admin/generate_link'],
    ['POST', '/invite'],
  ];

  it.each(writes)(
    '%s %s: malformed, wrongly typed and oversized bodies are GoTrue 4xx',
    async (method, path) => {
      const bodies = [
        '{',
        '[]',
        '"x"',
        JSON.stringify({
          email: 42,
          password: {},
          user_metadata: [],
          ban_duration: 5,
          should_soft_delete: 'yes',
          type: 1,
        }),
        JSON.stringify({
          email: `${'a'.repeat(5000)}@x.com`,
          password: 'p'.repeat(5000),
          phone: '1'.repeat(500),
        }),
        JSON.stringify({
          email: uniqueEmail('meta'),
          user_metadata: { big: 'x'.repeat(20_000) },
          app_metadata: 'str',
          data: 7,
        }),
        JSON.stringify({
          email: 'a\u0000b@x.com',
          id: 'not-a-uuid',
          role: 'r'.repeat(500),
          type: 'signup\u0000',
        }),
      ];
      for (const body of bodies) {
        const r = await adminFetch(path, { method, body });
        expect(r.status, `${body.slice(0, 60)} → ${r.text}`).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.json).toMatchObject({
          code: r.status,
          error_code: expect.any(String),
          msg: expect.any(String),
        });
      }
    },
  );

  it('bad uuids in paths are 404 validation_failed, never a database error', async () => {
    for (const id of ["1' or '1'='1", '00000000-0000-0000-0000-00000000000g', 'x'.repeat(300), '%00']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const r = await adminFetch(`/admin/users/${encodeURIComponent(id)}`, {
          method,
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        expectGoTrueError(r, 'validation_failed', 404);
      }
    }
  });

  it('ban durations: Go syntax or none, nothing else', async () => {
    const { user } = await createConfirmed('bans');
    for (const ok of ['1h', '90m', '1h30m', '1.5h', '3600s', 'none'])
      expect((await admin.updateUserById(user.id, { ban_duration: ok })).error, ok).toBeNull();
    for (const bad of ['', '1d', '-1h', 'h', '1 h', '99999999999h', '1h'.repeat(40)]) {
      const r = await adminFetch(`/admin/users/${user.id}`, {
        method: 'PUT',
        body: JSON.stringify({ ban_duration: bad }),
      });
      if (bad === '') {
        // "" is GoTrue's "not given".
        expect(r.status).toBe(200);
        continue;
      }
      expectGoTrueError(r, 'validation_failed', 400);
    }
  });
});

describe('concurrency', () => {
  it('two admins updating one user: both metadata merges land, no 5xx', async () => {
    const { user } = await createConfirmed('conc-upd');
    const other = createClient(t.url, SERVICE_KEY, { auth: noSession }).auth.admin;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? admin : other).updateUserById(user.id, { user_metadata: { [`k${i}`]: i } }),
      ),
    );
    for (const r of results) expect(r.error).toBeNull();
    const final = (await admin.getUserById(user.id)).data.user!;
    for (let i = 0; i < 10; i++) expect(final.user_metadata[`k${i}`]).toBe(i);
  });

  it('updating and deleting one user at once: each answer is 200 or 404, the user ends deleted', async () => {
    const { user } = await createConfirmed('conc-del');
    const calls = [
      ...Array.from({ length: 6 }, () =>
        adminFetch(`/admin/users/${user.id}`, {
          method: 'PUT',
          body: JSON.stringify({ user_metadata: { n: 1 } }),
        }),
      ),
      adminFetch(`/admin/users/${user.id}`, { method: 'DELETE', body: '{}' }),
      adminFetch(`/admin/users/${user.id}`, { method: 'DELETE', body: '{"should_soft_delete":true}' }),
    ];
    const results = await Promise.all(calls);
    for (const r of results) expect([200, 404], r.text).toContain(r.status);
    const deletes = results.slice(6).filter((r) => r.status === 200);
    expect(deletes.length).toBeGreaterThanOrEqual(1);
    const final = await adminFetch(`/admin/users/${user.id}`);
    // Hard-deleted, or soft-deleted (when the soft delete came last).
    if (final.status === 200) expect(final.json.deleted_at).toBeDefined();
    else expect(final.status).toBe(404);
  });

  it('a user refreshing while being banned: no 5xx, and the ban holds', async () => {
    const { email, user } = await createConfirmed('conc-ban');
    let refreshToken = (await signIn(email)).data.session!.refresh_token;
    const statuses: number[] = [];
    let stop = false;
    const refresher = (async () => {
      while (!stop) {
        const res = await fetch(`${t.url}/auth/v1/token?grant_type=refresh_token`, {
          method: 'POST',
          headers: { apikey: t.anonKey, 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: refreshToken }),
        });
        statuses.push(res.status);
        const body = await res.json();
        if (res.status === 200) refreshToken = body.refresh_token;
        else break;
      }
    })();
    await new Promise((r) => setTimeout(r, 50));
    expect((await admin.updateUserById(user.id, { ban_duration: '1h' })).error).toBeNull();
    stop = true;
    await refresher;
    expect(statuses.every((s) => s < 500)).toBe(true);
    const after = await t.client().auth.refreshSession({ refresh_token: refreshToken });
    expect(after.error).toMatchObject({ status: 400, code: 'user_banned' });
  });

  it('a user refreshing while being deleted: no 5xx, the refresh token dies with the user', async () => {
    const { email, user } = await createConfirmed('conc-gone');
    const { refresh_token } = (await signIn(email)).data.session!;
    const [refreshes, deletion] = await Promise.all([
      Promise.all(
        Array.from({ length: 5 }, () =>
          fetch(`${t.url}/auth/v1/token?grant_type=refresh_token`, {
            method: 'POST',
            headers: { apikey: t.anonKey, 'content-type': 'application/json' },
            body: JSON.stringify({ refresh_token }),
          }).then((r) => r.status),
        ),
      ),
      admin.deleteUser(user.id),
    ]);
    expect(deletion.error).toBeNull();
    for (const s of refreshes) expect(s).toBeLessThan(500);
    const after = await t.client().auth.refreshSession({ refresh_token });
    expect(after.error?.status).toBe(400);
    expect(await t.server.deps.db.select().from(users).where(eq(users.id, user.id))).toHaveLength(0);
  });
});
