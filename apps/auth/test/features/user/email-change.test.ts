// Secure email change through the official client: both addresses confirm (links or 6-digit codes),
// old links die, a new password cancels, resend, and MAILER_SECURE_EMAIL_CHANGE_ENABLED=false.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followLink } from '../../support/email-links.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** Signs up (confirmed), signs in and asks to move the account to a new address; returns both mails. */
async function startEmailChange(server: TestServer = t) {
  const email = uniqueEmail('chg-old');
  const next = uniqueEmail('chg-new');
  const sb = server.client();
  expect((await sb.auth.signUp({ email, password: 'correct horse' })).error).toBeNull();
  await fetch((await server.inbox.waitFor(email)).links[0] as string, { redirect: 'manual' });
  expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
  expect((await sb.auth.updateUser({ email: next })).error).toBeNull();
  return {
    sb,
    email,
    next,
    toNew: () => server.inbox.waitFor(next),
    toCurrent: () => server.inbox.waitFor(email),
  };
}

/** Which of the two addresses signs in with the password now. */
async function addressThatSignsIn(server: TestServer, email: string, next: string) {
  const old = await server.client().auth.signInWithPassword({ email, password: 'correct horse' });
  const neu = await server.client().auth.signInWithPassword({ email: next, password: 'correct horse' });
  if (!old.error && neu.error?.code === 'invalid_credentials') return 'current';
  if (!neu.error && old.error?.code === 'invalid_credentials') return 'new';
  throw new Error(`unexpected: ${old.error?.code} / ${neu.error?.code}`);
}

describe('secure email change (both addresses confirm)', () => {
  it('applies the change only after the links to both addresses are followed', async () => {
    const { sb, email, next, toNew, toCurrent } = await startEmailChange();
    const current = await toCurrent();
    expect(current.subject).toMatch(/change of your Namaa email/);
    expect(current.text).toContain(next); // the current owner sees where the account would move
    const toNext = await toNew();

    // First half: accepted, nothing changes, and nobody is signed in by the link.
    const first = await followLink(toNext.links[0] as string);
    expect(first.params.get('message')).toBe(
      'Confirmation link accepted. Please proceed to confirm link sent to the other email',
    );
    expect(first.params.get('access_token')).toBeNull();
    expect(await addressThatSignsIn(t, email, next)).toBe('current');
    expect((await sb.auth.getUser()).data.user).toMatchObject({ email, new_email: next });
    // Each link works once. (An implicit-flow link reports errors in the fragment only.)
    const reused = await followLink(toNext.links[0] as string);
    expect(reused.params.get('error_code')).toBe('otp_expired');
    expect(reused.location.searchParams.get('error_code')).toBeNull();

    // Second half: applied, and this link signs in as a normal email link does.
    const second = await followLink(current.links[0] as string);
    expect(second.params.get('type')).toBe('email_change');
    expect(second.params.get('access_token')).toBeTruthy();
    expect(await addressThatSignsIn(t, email, next)).toBe('new');
    const after = (await sb.auth.getUser()).data.user;
    expect(after?.email).toBe(next);
    expect(after?.new_email).toBeUndefined();
  });

  it('voids every link mailed to the old address once the change applies', async () => {
    const { email, toNew, toCurrent } = await startEmailChange();
    const current = await toCurrent();
    const toNext = await toNew();
    // A recovery link mailed to the old address before the change…
    expect((await t.client().auth.resetPasswordForEmail(email)).error).toBeNull();
    const recovery = await t.inbox.waitFor(email);
    await followLink(toNext.links[0] as string);
    expect((await followLink(current.links[0] as string)).params.get('access_token')).toBeTruthy();
    // …no longer signs anyone in: the old mailbox is not the account's any more.
    expect((await followLink(recovery.links[0] as string)).params.get('error_code')).toBe('otp_expired');
  });

  it('accepts the two 6-digit codes through verifyOtp, in either order', async () => {
    const { email, next, toNew, toCurrent } = await startEmailChange();
    const [current, toNext] = [await toCurrent(), await toNew()];
    const sb = t.client();
    // The code sent to the current address is bound to that address.
    const wrongAddress = await sb.auth.verifyOtp({
      email: next,
      token: current.code as string,
      type: 'email_change',
    });
    expect(wrongAddress.error?.code).toBe('otp_expired');
    const first = await sb.auth.verifyOtp({ email, token: current.code as string, type: 'email_change' });
    expect(first.error).toBeNull();
    expect(first.data).toEqual({ user: null, session: null });
    expect(await addressThatSignsIn(t, email, next)).toBe('current');
    const second = await sb.auth.verifyOtp({
      email: next,
      token: toNext.code as string,
      type: 'email_change',
    });
    expect(second.error).toBeNull();
    expect(second.data.session?.user.email).toBe(next);
    expect(await addressThatSignsIn(t, email, next)).toBe('new');
  });

  it("answers GoTrue's {msg, code} body to the first half and a session to the second, even when both arrive at once", async () => {
    for (let round = 0; round < 3; round++) {
      const { email, next, toNew, toCurrent } = await startEmailChange();
      const hashes = [await toCurrent(), await toNew()].map(
        (m) => new URL(m.links[0] as string).searchParams.get('token') as string,
      );
      const answers = await Promise.all(
        hashes.map(async (token_hash) => {
          const res = await t.api('/verify', {
            method: 'POST',
            body: JSON.stringify({ type: 'email_change', token_hash }),
          });
          return { status: res.status, body: (await res.json()) as Record<string, unknown> };
        }),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const halves = answers.filter((a) => a.body.msg !== undefined);
      const sessions = answers.filter((a) => a.body.access_token !== undefined);
      expect(halves.map((a) => a.body)).toEqual([
        {
          msg: 'Confirmation link accepted. Please proceed to confirm link sent to the other email',
          code: '200',
        },
      ]);
      expect(sessions).toHaveLength(1);
      expect(sessions[0]?.body.user).toMatchObject({ email: next });
      expect(await addressThatSignsIn(t, email, next)).toBe('new');
    }
  });

  it('a new password cancels the pending change and voids its links', async () => {
    const { sb, email, next, toNew, toCurrent } = await startEmailChange();
    const links = [(await toCurrent()).links[0] as string, (await toNew()).links[0] as string];
    expect((await sb.auth.updateUser({ password: 'a fresh password' })).error).toBeNull();
    for (const link of links) expect((await followLink(link)).params.get('error_code')).toBe('otp_expired');
    expect((await sb.auth.getUser()).data.user).toMatchObject({ email });
    expect((await sb.auth.getUser()).data.user?.new_email).toBeUndefined();
    expect(
      (await t.client().auth.signInWithPassword({ email: next, password: 'a fresh password' })).error?.code,
    ).toBe('invalid_credentials');
  });

  it('resend mails both links afresh and the change needs both again', async () => {
    const { sb, email, next, toNew, toCurrent } = await startEmailChange();
    const oldCurrent = await toCurrent();
    await toNew();
    expect((await followLink(oldCurrent.links[0] as string)).params.get('message')).toBeTruthy();
    expect((await sb.auth.resend({ type: 'email_change', email: next })).error).toBeNull();
    const [current, toNext] = [await toCurrent(), await toNew()];
    expect((await followLink(toNext.links[0] as string)).params.get('message')).toBeTruthy();
    expect(await addressThatSignsIn(t, email, next)).toBe('current');
    expect((await followLink(current.links[0] as string)).params.get('type')).toBe('email_change');
    expect(await addressThatSignsIn(t, email, next)).toBe('new');
  });

  it('with MAILER_SECURE_EMAIL_CHANGE_ENABLED=false the link to the new address alone applies it', async () => {
    const single = await startTestServer({ MAILER_SECURE_EMAIL_CHANGE_ENABLED: 'false' });
    try {
      const { email, next, toNew } = await startEmailChange(single);
      const mail = await toNew();
      expect(single.inbox.all().filter((m) => m.to === email && /change/i.test(m.subject))).toEqual([]);
      const { params } = await followLink(mail.links[0] as string);
      expect(params.get('type')).toBe('email_change');
      expect(await addressThatSignsIn(single, email, next)).toBe('new');
    } finally {
      await single.close();
    }
  });
});
