// PKCE for email links through the official client (flowType 'pkce', a storage object so the
// verifier persists in Node): sign-up, recovery, email change and resend; GoTrue's error codes.
import { createHash, randomBytes } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowState } from '../../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const PASSWORD = 'Namaa-pkce-Pass-5521';

function pkceClient(): SupabaseClient {
  const store = new Map<string, string>();
  return createClient(t.url, t.anonKey, {
    auth: {
      flowType: 'pkce',
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      storage: {
        getItem: (k) => store.get(k) ?? null,
        setItem: (k, v) => void store.set(k, v),
        removeItem: (k) => void store.delete(k),
      },
    },
  });
}

/** Follows a mailed link; returns the `code` of the ?code= redirect. */
async function codeFromLink(link: string): Promise<string> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') as string);
  expect(location.hash).toBe(''); // no tokens in the URL under PKCE
  const code = location.searchParams.get('code');
  expect(code).toMatch(/^[0-9a-f-]{36}$/);
  return code as string;
}

async function signUpPkce(sb: SupabaseClient, email: string) {
  const { data, error } = await sb.auth.signUp({
    email,
    password: PASSWORD,
    options: { emailRedirectTo: `${t.url}/welcome` },
  });
  expect(error).toBeNull();
  expect(data.session).toBeNull();
  const mail = await t.inbox.waitFor(email);
  return codeFromLink(mail.links[0] as string);
}

describe('PKCE email links', () => {
  it('sign-up: the link redirects with ?code=, exchangeCodeForSession signs in once', async () => {
    const sb = pkceClient();
    const email = uniqueEmail('pkce');
    const code = await signUpPkce(sb, email);
    const events: string[] = [];
    sb.auth.onAuthStateChange((e) => {
      events.push(e);
    });
    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect(data.user?.email_confirmed_at).toBeTruthy();
    const claims = decodeJwt(data.session?.access_token as string) as { amr: Array<{ method: string }> };
    expect(claims.amr[0]?.method).toBe('email/signup');
    expect(events).toContain('SIGNED_IN');
    // Reused code: the flow state is gone.
    const raw = await t.api('/token?grant_type=pkce', {
      method: 'POST',
      headers: { 'X-Supabase-Api-Version': '2024-01-01' },
      body: JSON.stringify({ auth_code: code, code_verifier: 'x'.repeat(43) }),
    });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toMatchObject({ code: 'flow_state_not_found' });
  });

  it('recovery: the exchange emits PASSWORD_RECOVERY and the password can be changed', async () => {
    const email = uniqueEmail('pkce-rec');
    const first = pkceClient();
    await first.auth.exchangeCodeForSession(await signUpPkce(first, email));
    const sb = pkceClient();
    expect((await sb.auth.resetPasswordForEmail(email, { redirectTo: `${t.url}/reset` })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    const code = await codeFromLink(mail.links[0] as string);
    const events: string[] = [];
    sb.auth.onAuthStateChange((e) => {
      events.push(e);
    });
    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
    expect(
      (decodeJwt(data.session?.access_token as string) as { amr: Array<{ method: string }> }).amr[0]?.method,
    ).toBe('recovery');
    expect((await sb.auth.updateUser({ password: 'Brand-New-Pass-8812' })).error).toBeNull();
  });

  it('20 parallel exchanges of one auth code: exactly one session, the rest flow_state_not_found', async () => {
    const verifier = randomBytes(48).toString('base64url');
    const email = uniqueEmail('pkce-race');
    const signup = await t.api('/signup', {
      method: 'POST',
      body: JSON.stringify({
        email,
        password: PASSWORD,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 's256',
      }),
    });
    expect(signup.status).toBe(200);
    const code = await codeFromLink((await t.inbox.waitFor(email)).links[0] as string);
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await t.api('/token?grant_type=pkce', {
          method: 'POST',
          body: JSON.stringify({ auth_code: code, code_verifier: verifier }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      }),
    );
    expect(
      answers.filter((a) => a.status === 200).map((a) => (a.body.user as { email: string }).email),
    ).toEqual([email]);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body.error_code])).toEqual(
      Array.from({ length: 19 }, () => [404, 'flow_state_not_found']),
    );
  });

  it('a used PKCE link reports the error in the query string as well as the fragment', async () => {
    const sb = pkceClient();
    const email = uniqueEmail('pkce-used');
    await sb.auth.signUp({ email, password: PASSWORD, options: { emailRedirectTo: `${t.url}/welcome` } });
    const link = (await t.inbox.waitFor(email)).links[0] as string;
    expect(new URL(link).searchParams.get('token')).toMatch(/^pkce_/); // GoTrue's PKCE link marker
    await codeFromLink(link);
    const again = await fetch(link, { redirect: 'manual' });
    const location = new URL(again.headers.get('location') as string);
    expect(location.pathname).toBe('/welcome');
    expect(location.searchParams.get('error_code')).toBe('otp_expired');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toBe('Email link is invalid or has expired');
    expect(new URLSearchParams(location.hash.slice(1)).get('error_code')).toBe('otp_expired');
  });

  it('signing up again before confirming mails a fresh PKCE link for the new request', async () => {
    const email = uniqueEmail('pkce-again');
    await pkceClient().auth.signUp({ email, password: PASSWORD });
    await t.inbox.waitFor(email);
    // The visitor signs up again (another tab or device): the new mail must work with this client.
    const again = pkceClient();
    expect((await again.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    const { data, error } = await again.auth.exchangeCodeForSession(
      await codeFromLink(mail.links[0] as string),
    );
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
  });

  it('email change and resend carry the challenge too', async () => {
    const email = uniqueEmail('pkce-chg');
    const sb = pkceClient();
    await sb.auth.exchangeCodeForSession(await signUpPkce(sb, email));
    const next = uniqueEmail('pkce-new');
    expect(
      (await sb.auth.updateUser({ email: next }, { emailRedirectTo: `${t.url}/changed` })).error,
    ).toBeNull();
    await t.inbox.waitFor(next);
    await t.inbox.waitFor(email, (m) => /change/i.test(m.subject));
    // resend of the email change: fresh PKCE links to both addresses
    expect(
      (
        await sb.auth.resend({
          type: 'email_change',
          email: next,
          options: { emailRedirectTo: `${t.url}/changed` },
        })
      ).error,
    ).toBeNull();
    const mail = await t.inbox.waitFor(next);
    const current = await t.inbox.waitFor(email, (m) => /change/i.test(m.subject));
    // The first of the two confirmations: GoTrue's message in the query (PKCE) and the fragment, no code.
    const half = await fetch(current.links[0] as string, { redirect: 'manual' });
    const halfUrl = new URL(half.headers.get('location') as string);
    const message = 'Confirmation link accepted. Please proceed to confirm link sent to the other email';
    expect(halfUrl.pathname).toBe('/changed');
    expect(halfUrl.searchParams.get('message')).toBe(message);
    expect(halfUrl.searchParams.get('code')).toBeNull();
    expect(new URLSearchParams(halfUrl.hash.slice(1)).get('message')).toBe(message);
    const code = await codeFromLink(mail.links[0] as string);
    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user?.email).toBe(next);

    const pending = uniqueEmail('pkce-resend');
    const other = pkceClient();
    await other.auth.signUp({ email: pending, password: PASSWORD });
    await t.inbox.waitFor(pending);
    expect((await other.auth.resend({ type: 'signup', email: pending })).error).toBeNull();
    const again = await t.inbox.waitFor(pending);
    const ex = await other.auth.exchangeCodeForSession(await codeFromLink(again.links[0] as string));
    expect(ex.error).toBeNull();
    expect(ex.data.user?.email).toBe(pending);
  });

  it('answers bad_code_verifier, flow_state_expired and validation_failed', async () => {
    const sb = pkceClient();
    const email = uniqueEmail('pkce-err');
    const code = await signUpPkce(sb, email);
    const post = (body: unknown) =>
      t.api('/token?grant_type=pkce', {
        method: 'POST',
        headers: { 'X-Supabase-Api-Version': '2024-01-01' },
        body: JSON.stringify(body),
      });
    const wrong = await post({ auth_code: code, code_verifier: 'a'.repeat(64) });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'bad_code_verifier' });
    for (const body of [
      {},
      { auth_code: code },
      { code_verifier: 'a'.repeat(64) },
      { auth_code: code, code_verifier: 'short' },
      { auth_code: 5 },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'validation_failed' });
    }
    // Expired: the auth code outlived FLOW_STATE_EXPIRY.
    await t.server.deps.db
      .update(flowState)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(flowState.userId, (await findUserId(email)) as string));
    const late = await sb.auth.exchangeCodeForSession(code);
    expect(late.error).toMatchObject({ status: 422, code: 'flow_state_expired' });

    // Half a PKCE pair, or a malformed challenge, is refused at sign-up.
    for (const body of [
      { email: uniqueEmail('half'), password: PASSWORD, code_challenge: 'a'.repeat(43) },
      {
        email: uniqueEmail('half'),
        password: PASSWORD,
        code_challenge: 'short',
        code_challenge_method: 's256',
      },
      {
        email: uniqueEmail('half'),
        password: PASSWORD,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'md5',
      },
    ]) {
      const res = await t.api('/signup', { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect((await res.json()).error_code).toBe('validation_failed');
    }
  });
});

async function findUserId(email: string): Promise<string | undefined> {
  const { users } = await import('../../../src/db/schema.ts');
  const [row] = await t.server.deps.db.select().from(users).where(eq(users.email, email));
  return row?.id;
}
