// Sign-up through the official supabase-js client against the real service: email confirmation by
// link, 6-digit code and token_hash, repeated sign-ups, resend, and the auto-confirm mode. Mail is
// received by a real SMTP server and links are followed over HTTP.
import { decodeJwt } from 'jose';
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

describe('sign-up with email confirmation', () => {
  it('returns a user without a session, mails a link that confirms and signs in', async () => {
    const email = uniqueEmail('signup');
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({
      email: email.toUpperCase(),
      password: 'secret-pass',
      options: { data: { name: 'Sara' }, emailRedirectTo: `${t.url}/welcome` },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata).toEqual({ name: 'Sara' });
    expect(data.user?.identities).toHaveLength(1);
    expect(data.user?.email_confirmed_at).toBeUndefined();

    // Not confirmed yet: the right password learns "Email not confirmed", a wrong one does not.
    const early = await sb.auth.signInWithPassword({ email, password: 'secret-pass' });
    expect(early.error?.code).toBe('email_not_confirmed');
    const wrong = await sb.auth.signInWithPassword({ email, password: 'not-the-one' });
    expect(wrong.error?.code).toBe('invalid_credentials');

    const mail = await t.inbox.waitFor(email);
    expect(mail.subject).toMatch(/confirm/i);
    expect(mail.code).toMatch(/^\d{6}$/);
    const link = new URL(mail.links[0] as string);
    expect(link.origin + link.pathname).toBe(`${t.url}/auth/v1/verify`);
    expect(link.searchParams.get('type')).toBe('signup');
    expect(link.searchParams.get('redirect_to')).toBe(`${t.url}/welcome`);

    const { location, params } = await followLink(link.href);
    expect(location.origin + location.pathname).toBe(`${t.url}/welcome`);
    expect(params.get('type')).toBe('signup');
    expect(params.get('token_type')).toBe('bearer');
    const access = params.get('access_token') as string;
    const claims = decodeJwt(access);
    expect(claims.email).toBe(email);
    expect(claims.amr).toEqual([expect.objectContaining({ method: 'otp' })]);

    // The session from the link works with the client.
    const linked = t.client();
    const set = await linked.auth.setSession({
      access_token: access,
      refresh_token: params.get('refresh_token') as string,
    });
    expect(set.error).toBeNull();
    expect(set.data.user?.email_confirmed_at).toBeTruthy();
    expect(set.data.user?.user_metadata.email_verified).toBe(true);

    // Single use: the same link again redirects with otp_expired.
    const again = await followLink(link.href);
    expect(again.params.get('error_code')).toBe('otp_expired');
    expect(again.params.get('error_description')).toBe('Email link is invalid or has expired');

    const signIn = await sb.auth.signInWithPassword({ email, password: 'secret-pass' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.access_token).toBeTruthy();
    expect(signIn.data.weakPassword ?? null).toBeNull();
  });

  it('confirms with the 6-digit code (verifyOtp) instead of the link', async () => {
    const email = uniqueEmail('otp');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const bad = await sb.auth.verifyOtp({
      email,
      token: mail.code === '000000' ? '111111' : '000000',
      type: 'signup',
    });
    expect(bad.error?.code).toBe('otp_expired');
    const { data, error } = await sb.auth.verifyOtp({ email, token: mail.code as string, type: 'signup' });
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    const reuse = await t.client().auth.verifyOtp({ email, token: mail.code as string, type: 'signup' });
    expect(reuse.error?.code).toBe('otp_expired');
  });

  it('confirms with token_hash (verifyOtp) — the link token, for scanner-safe pages', async () => {
    const email = uniqueEmail('hash');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const mail = await t.inbox.waitFor(email);
    const token = new URL(mail.links[0] as string).searchParams.get('token') as string;
    const { data, error } = await sb.auth.verifyOtp({ token_hash: token, type: 'email' });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
  });

  it('answers a sign-up of a confirmed email with the enumeration-safe fake user and sends nothing', async () => {
    const email = uniqueEmail('dup');
    await signUpConfirmed(t, email);
    const before = t.inbox.all().filter((m) => m.to === email).length;
    const { data, error } = await t.client().auth.signUp({ email, password: 'another-pass' });
    expect(error).toBeNull();
    expect(data.user?.identities).toEqual([]);
    expect(data.session).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(t.inbox.all().filter((m) => m.to === email).length).toBe(before);
    // The password did not change.
    expect((await t.client().auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
  });

  // Account pre-hijacking: a stranger signs up with the owner's address first; the owner later signs
  // up too and clicks the link. The account must end up with the owner's password and metadata.
  it("lets a repeated sign-up of a pending address replace it: the stranger's earlier password and link stop working", async () => {
    const email = uniqueEmail('unconf');
    const stranger = t.client();
    await stranger.auth.signUp({ email, password: 'stranger-pass', options: { data: { name: 'Stranger' } } });
    const strangersMail = await t.inbox.waitFor(email);
    const owner = t.client();
    const again = await owner.auth.signUp({
      email,
      password: 'owner-pass',
      options: { data: { name: 'Owner' } },
    });
    expect(again.error).toBeNull();
    expect(again.data.user?.identities).toHaveLength(1);
    expect(again.data.user?.user_metadata).toEqual({ name: 'Owner' });
    const ownersMail = await t.inbox.waitFor(email);
    expect((await followLink(strangersMail.links[0] as string)).params.get('error_code')).toBe('otp_expired');
    await followLink(ownersMail.links[0] as string);
    expect((await stranger.auth.signInWithPassword({ email, password: 'stranger-pass' })).error?.code).toBe(
      'invalid_credentials',
    );
    const signedIn = await owner.auth.signInWithPassword({ email, password: 'owner-pass' });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user?.user_metadata).toMatchObject({ name: 'Owner', email_verified: true });
  });

  it('resend() sends a fresh working link and answers {} for unknown addresses', async () => {
    const email = uniqueEmail('resend');
    const sb = t.client();
    await sb.auth.signUp({ email, password: 'secret-pass' });
    const first = await t.inbox.waitFor(email);
    expect((await sb.auth.resend({ type: 'signup', email })).error).toBeNull();
    const second = await t.inbox.waitFor(email);
    expect(second.links[0]).not.toBe(first.links[0]);
    // Only the newest link works.
    expect((await followLink(first.links[0] as string)).params.get('error_code')).toBe('otp_expired');
    expect((await followLink(second.links[0] as string)).params.get('access_token')).toBeTruthy();
    expect((await sb.auth.resend({ type: 'signup', email: uniqueEmail('nobody') })).error).toBeNull();
  });

  it('falls back to SITE_URL for a redirect_to that is not allowed', async () => {
    const email = uniqueEmail('redir');
    await t.client().auth.signUp({
      email,
      password: 'secret-pass',
      options: { emailRedirectTo: 'https://evil.example/steal' },
    });
    const mail = await t.inbox.waitFor(email);
    expect(new URL(mail.links[0] as string).searchParams.get('redirect_to')).toBe(t.config.SITE_URL);
    const { location } = await followLink(mail.links[0] as string);
    expect(location.origin).toBe(new URL(t.config.SITE_URL).origin);
  });
});

describe('auto-confirm mode', () => {
  it('returns a session at sign-up and 422 user_already_exists for a duplicate', async () => {
    const auto = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
    try {
      const email = uniqueEmail('auto');
      const first = await auto.client().auth.signUp({ email, password: 'secret-pass' });
      expect(first.error).toBeNull();
      expect(first.data.session?.access_token).toBeTruthy();
      expect(first.data.user?.email_confirmed_at).toBeTruthy();
      const dup = await auto.client().auth.signUp({ email: email.toUpperCase(), password: 'secret-pass' });
      expect(dup.error?.status).toBe(422);
      expect(dup.error?.code).toBe('user_already_exists');
      expect(dup.error?.message).toBe('User already registered');
    } finally {
      await auto.close();
    }
  });
});
