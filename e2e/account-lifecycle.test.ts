// Issue 13: the account lifecycle on the site, against the real product (PKCE email links), a real
// SMTP server and Chromium: password recovery, confirmation in another browser, resend with the
// mail floor's countdown, failed links, crafted links with someone else's tokens, and the second
// factor at sign-in. Both languages.
import { createClient } from '@supabase/supabase-js';
import { generate } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  desktop,
  interactAndHydrate,
  launchBrowser,
  recordConsole,
  waitForHydration,
} from './support/browser.ts';
import { type Mailbox, startMailbox } from './support/mailbox.ts';
import { type Product, startProduct } from './support/product.ts';
import { addVirtualAuthenticator } from './support/virtual-authenticator.ts';

const ANON_KEY = 'sb_publishable_namaa_development_key';
const PASSWORD = 'correct-horse-7';

let product: Product;
let mailbox: Mailbox;
let browser: Browser;
/** Made first, so their confirmation mail is older when the recovery tests (last) ask for mail. */
const forgotAccounts: Record<string, Promise<string>> = {};

// More than the e2e hooks' 120 s: the start alone may take up to 110 s (support/product.ts), and two
// sign-ups then wait for their mail (up to 15 s each). This is often the first end-to-end file to
// run, on a cold compile cache, beside the PostgreSQL suites in CI.
beforeAll(async () => {
  mailbox = await startMailbox();
  [product, browser] = await Promise.all([
    startProduct({ SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, RATE_LIMIT_OTP_PER_IP: '1000' }),
    launchBrowser(),
  ]);
  for (const locale of ['en', 'ar']) {
    forgotAccounts[locale] = confirmedAccount(`forgot-${locale}`);
    await forgotAccounts[locale];
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await mailbox?.close();
});

let counter = 0;
const newEmail = (prefix: string) => `${prefix}-${Date.now()}-${++counter}@example.com`;
const toast = (p: Page, title: string) => p.locator('[data-sonner-toast]').filter({ hasText: title });
const node = () =>
  createClient(product.origin, ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });

/** A confirmed account, made outside the browser (sign-up, then its link followed by plain fetch). */
async function confirmedAccount(prefix: string, password = PASSWORD): Promise<string> {
  const email = newEmail(prefix);
  const { error } = await node().auth.signUp({ email, password });
  expect(error).toBeNull();
  const link = mailbox.verifyLink(await mailbox.nextOfType(email, 'signup'), product.origin);
  expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  return email;
}

async function signInOnPage(p: Page, prefix: string, email: string, password: string) {
  await p.goto(`${product.origin}${prefix}/auth`);
  await interactAndHydrate(p);
  await p.locator('input[name=email]').fill(email);
  await p.locator('input[name=password]').fill(password);
  await p.locator('button[type=submit]').click();
}

const storedSession = (p: Page) =>
  p.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => /^sb-.+-auth-token$/.test(k));
    return key ? localStorage.getItem(key) : null;
  });

describe('confirmation links (PKCE)', () => {
  it('opened in another browser, the link confirms the address and says "Your email is confirmed: sign in" (en, ar)', async () => {
    for (const [prefix, text] of [
      ['', 'Your email is confirmed: sign in.'],
      ['/ar', 'تم تأكيد بريدك الإلكتروني: سجّل الدخول.'],
    ] as const) {
      const email = newEmail(`elsewhere${prefix.replace('/', '-')}`);
      const asking = await browser.newContext(desktop);
      const a = await asking.newPage();
      await a.goto(`${product.origin}${prefix}/auth?mode=signup`);
      await waitForHydration(a);
      await a.locator('input[name=email]').fill(email);
      await a.locator('input[name=password]').fill(PASSWORD);
      await a.locator('button[type=submit]').click();
      await a.getByTestId('resend').waitFor();
      const link = mailbox.verifyLink(await mailbox.nextOfType(email, 'signup'), product.origin);

      // Another browser: no code verifier there.
      const elsewhere = await browser.newContext(desktop);
      const b = await elsewhere.newPage();
      await b.goto(link);
      await b.waitForURL(`${product.origin}${prefix}/auth`);
      await expect.poll(() => b.getByTestId('auth-notice').textContent()).toBe(text);
      expect(b.url()).not.toContain('code=');
      expect(await storedSession(b)).toBeNull();
      // The address is confirmed: signing in here works.
      await b.locator('input[name=email]').fill(email);
      await b.locator('input[name=password]').fill(PASSWORD);
      await b.locator('button[type=submit]').click();
      await b.waitForURL(`${product.origin}${prefix}/`);
      await b.getByTestId('nav-email').first().waitFor();
      await Promise.all([asking.close(), elsewhere.close()]);
    }
  });

  it('a used link names the problem in plain words and offers a new link (en, ar)', async () => {
    for (const [prefix, text] of [
      ['', 'That email link has expired or was already used.'],
      ['/ar', 'انتهت صلاحية رابط البريد هذا أو سبق استخدامه.'],
    ] as const) {
      const email = newEmail('used');
      const { error } = await node().auth.signUp({
        email,
        password: PASSWORD,
        options: { emailRedirectTo: `${product.origin}${prefix}/` },
      });
      expect(error).toBeNull();
      const link = mailbox.verifyLink(await mailbox.nextOfType(email, 'signup'), product.origin);
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
      const context = await browser.newContext(desktop);
      const p = await context.newPage();
      await p.goto(link);
      await p.waitForURL(`${product.origin}${prefix}/auth`);
      await expect.poll(() => p.getByTestId('auth-notice').textContent()).toContain(text);
      expect(p.url()).not.toMatch(/error|code=/);
      await p.getByTestId('resend-button').waitFor();
      await context.close();
    }
  });

  it("a crafted link with someone else's tokens in the fragment signs nobody in", async () => {
    const victimOf = await confirmedAccount('attacker');
    const { data, error } = await node().auth.signInWithPassword({ email: victimOf, password: PASSWORD });
    expect(error).toBeNull();
    const s = data.session!;
    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    await p.goto(
      `${product.origin}/#access_token=${s.access_token}&expires_at=${s.expires_at}&expires_in=3600&refresh_token=${s.refresh_token}&token_type=bearer&type=signup`,
    );
    await waitForHydration(p);
    await p.waitForURL(`${product.origin}/auth`);
    expect(await storedSession(p)).toBeNull();
    expect(p.url()).not.toContain('access_token');
    await p.goBack();
    expect(p.url()).not.toContain('access_token');
    await context.close();
  });
});

describe('resend confirmation', () => {
  it('after sign-up, the mail floor is a countdown (no error toast); sign-in of an unconfirmed address offers it too', async () => {
    // The service's per-address floor is 60 s from the last mail (core/rate-limit.ts: a gap, not a
    // calendar minute), so the resend a few seconds after the sign-up's mail waits most of it.
    const email = newEmail('resend');
    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    await p.goto(`${product.origin}/auth?mode=signup`);
    await waitForHydration(p);
    await p.locator('input[name=email]').fill(email);
    await p.locator('input[name=password]').fill(PASSWORD);
    await p.locator('button[type=submit]').click();
    await toast(p, 'Success!').waitFor();
    await mailbox.nextOfType(email, 'signup');
    await p.getByTestId('resend-button').click();
    // The sign-up's mail went out moments ago: the floor answers with its wait, shown as a countdown.
    await expect
      .poll(() => p.getByTestId('resend-status').textContent())
      .toMatch(/^You can ask for another link in \d+ s\.$/);
    const first = Number((await p.getByTestId('resend-status').textContent())?.match(/\d+/)?.[0]);
    expect(first).toBeGreaterThan(30);
    expect(first).toBeLessThanOrEqual(60);
    expect(await p.getByTestId('resend-button').isDisabled()).toBe(true);
    expect(await toast(p, 'Error').count()).toBe(0);
    await expect
      .poll(
        async () => Number((await p.getByTestId('resend-status').textContent())?.match(/\d+/)?.[0] ?? 0),
        {
          timeout: 5_000,
        },
      )
      .toBeLessThan(first);

    // Sign-in before confirming: the service's message, and the same offer.
    const other = await browser.newContext(desktop);
    const q = await other.newPage();
    await signInOnPage(q, '/ar', email, PASSWORD);
    await q.getByTestId('resend').waitFor();
    expect(await q.getByTestId('resend').textContent()).toContain('لم يتأكد بريدك الإلكتروني بعد');
    await Promise.all([context.close(), other.close()]);
  }, 120_000);
});

describe.each([
  {
    locale: 'en',
    prefix: '',
    forgot: 'Forgot password?',
    sent: 'If an account exists for that address, we sent a link to set a new password. Please check your email.',
    resetHeading: 'Set a new password',
    updated: 'Password updated',
    noSession: 'This reset link has expired or was already used',
    wait: 'You can ask for another link in \\d+ s\\.',
    invalidCredentials: 'Invalid email or password. Please try again.',
    welcome: 'Welcome back!',
  },
  {
    locale: 'ar',
    prefix: '/ar',
    forgot: 'نسيت كلمة المرور؟',
    sent: 'إذا كان هناك حساب بهذا البريد، فقد أرسلنا إليه رابطًا لتعيين كلمة مرور جديدة. يرجى مراجعة بريدك الإلكتروني.',
    resetHeading: 'تعيين كلمة مرور جديدة',
    updated: 'تم تحديث كلمة المرور',
    noSession: 'انتهت صلاحية رابط الاستعادة هذا أو سبق استخدامه',
    wait: 'يمكنك طلب رابط جديد بعد \\d+ ثانية\\.',
    invalidCredentials: 'البريد الإلكتروني أو كلمة المرور غير صحيحة. يرجى المحاولة مرة أخرى.',
    welcome: 'مرحبًا بعودتك!',
  },
])('forgotten password ($locale)', (t) => {
  let context: BrowserContext;
  let page: Page;
  let email: string;
  let recoveryLink: string;
  const newPassword = `${t.locale}-new-Pass-8842`;

  beforeAll(async () => {
    email = (await forgotAccounts[t.locale]) as string;
    context = await browser.newContext(desktop);
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
  });

  it('"Forgot password?" leads from sign-in to the recovery form, which answers alike for any address', {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${product.origin}${t.prefix}/auth`);
    await interactAndHydrate(page);
    await page.getByRole('link', { name: t.forgot }).click();
    await page.waitForURL(`${product.origin}${t.prefix}/auth/forgot`);
    await interactAndHydrate(page);
    // Spec validation first, with focus on the field to fix.
    await page.locator('input[name=email]').fill('not-an-email');
    await page.locator('button[type=submit]').click();
    await expect.poll(() => page.locator('input[name=email]').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    // An unknown address gets the same answer as a real one.
    await page.locator('input[name=email]').fill(newEmail('nobody'));
    await page.locator('button[type=submit]').click();
    await expect.poll(() => page.getByTestId('forgot-status').textContent()).toBe(t.sent);
    await page.locator('input[name=email]').fill(email);
    await page.locator('button[type=submit]').click();
    // Its confirmation mail may be under a minute old: the per-address floor then answers with a
    // countdown (no error), and the button waits for it.
    const status = page.getByTestId('forgot-status');
    await expect
      .poll(() => status.textContent())
      .toMatch(new RegExp(`^(${t.sent.replace(/[.?]/g, '\\$&')}|${t.wait})$`));
    if ((await status.textContent()) !== t.sent) {
      expect(await page.locator('button[type=submit]').isDisabled()).toBe(true);
      await page.waitForFunction(
        () => !document.querySelector('button[type=submit]')?.hasAttribute('disabled'),
        null,
        {
          timeout: 65_000,
        },
      );
      await page.locator('button[type=submit]').click();
      await expect.poll(() => status.textContent()).toBe(t.sent);
    }
    recoveryLink = mailbox.verifyLink(await mailbox.nextOfType(email, 'recovery'), product.origin);
    // The link lands on this language's set-password page.
    expect(new URL(recoveryLink).searchParams.get('redirect_to')).toBe(
      `${product.origin}${t.prefix}/auth/reset`,
    );
  });

  it('the link opens "Set a new password"; the new password signs the visitor in at / and the old one is refused', async () => {
    const log = recordConsole(page);
    await page.goto(recoveryLink);
    await page.waitForURL(`${product.origin}${t.prefix}/auth/reset`);
    await page.locator('input[name=password]').waitFor();
    expect(await page.locator('h1').textContent()).toBe(t.resetHeading);
    // No code left in the URL or in the history.
    expect(page.url()).not.toContain('code=');
    // Spec limits before any call.
    await page.locator('input[name=password]').fill('12345');
    await page.locator('button[type=submit]').click();
    await expect.poll(() => page.locator('input[name=password]').getAttribute('aria-invalid')).toBe('true');
    await page.locator('input[name=password]').fill(newPassword);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(`${product.origin}${t.prefix}/`);
    await toast(page, t.updated).waitFor();
    await page.getByTestId('nav-email').first().waitFor();
    expect(await page.getByTestId('nav-email').first().textContent()).toBe(email);
    expect(log.errors).toEqual([]);
    await page.goBack();
    expect(page.url()).not.toContain('code=');

    // The old password no longer works; the new one does.
    const other = await browser.newContext(desktop);
    const p = await other.newPage();
    await signInOnPage(p, t.prefix, email, PASSWORD);
    await toast(p, t.locale === 'en' ? 'Error' : 'خطأ')
      .filter({ hasText: t.invalidCredentials })
      .waitFor();
    await signInOnPage(p, t.prefix, email, newPassword);
    await p.waitForURL(`${product.origin}${t.prefix}/`);
    await toast(p, t.welcome).waitFor();
    await other.close();
  });

  it('the same link used again lands on the page that says so and offers a fresh link', async () => {
    const other = await browser.newContext(desktop);
    const p = await other.newPage();
    await p.goto(recoveryLink);
    await p.waitForURL(`${product.origin}${t.prefix}/auth/reset`);
    await p.getByTestId('reset-no-session').waitFor();
    expect(await p.getByTestId('reset-no-session').textContent()).toContain(t.noSession);
    expect(await storedSession(p)).toBeNull();
    const fresh = p.getByTestId('reset-no-session').locator('a');
    expect(await fresh.getAttribute('href')).toBe(`${t.prefix}/auth/forgot`);
    // Typed by hand (no link at all): the same answer.
    await p.goto(`${product.origin}${t.prefix}/auth/reset`);
    await p.getByTestId('reset-no-session').waitFor();
    await other.close();
  });
});

describe.each([
  { locale: 'en', prefix: '', invalid: 'That code is wrong or has expired.', welcome: 'Welcome back!' },
  { locale: 'ar', prefix: '/ar', invalid: 'الرمز غير صحيح أو انتهت صلاحيته.', welcome: 'مرحبًا بعودتك!' },
])('sign-in with a TOTP factor ($locale)', (t) => {
  it('asks for the code after the password and counts the visitor signed in only once it is verified', async () => {
    const email = await confirmedAccount(`totp-${t.locale}`);
    const sb = node();
    expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const enrolled = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    expect(enrolled.error).toBeNull();
    const secret = enrolled.data!.totp.secret;
    const now = () => Math.floor(Date.now() / 1000);
    const verified = await sb.auth.mfa.challengeAndVerify({
      factorId: enrolled.data!.id,
      code: await generate({ secret, epoch: now() }),
    });
    expect(verified.error).toBeNull();

    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    await signInOnPage(p, t.prefix, email, PASSWORD);
    await p.getByTestId('mfa-step').waitFor();
    // Not signed in yet: still on the auth page, no "Welcome back!", and the code field is set up
    // for one-time codes.
    const code = p.locator('input[name=code]');
    expect(
      await code.evaluate((el: HTMLInputElement) => [el.autocomplete, el.inputMode, el.maxLength]),
    ).toEqual(['one-time-code', 'numeric', 6]);
    expect(new URL(p.url()).pathname).toBe(`${t.prefix}/auth`);
    expect(await toast(p, t.welcome).count()).toBe(0);

    // A wrong code (a valid shape, far from now): a clear message, focus back on the field.
    await code.fill(await generate({ secret, epoch: now() + 3600 }));
    await p.locator('button[type=submit]').click();
    await expect.poll(() => p.getByTestId('mfa-error').textContent()).toContain(t.invalid);
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect(await p.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('code');
    expect(new URL(p.url()).pathname).toBe(`${t.prefix}/auth`);

    // The right code (the next time step: the enrolment used the current one): signed in.
    await code.fill(await generate({ secret, epoch: now() + 30 }));
    await p.locator('button[type=submit]').click();
    await p.waitForURL(`${product.origin}${t.prefix}/`);
    await toast(p, t.welcome).waitFor();
    await p.getByTestId('nav-email').first().waitFor();
    const stored = JSON.parse((await storedSession(p)) ?? '{}');
    const claims = JSON.parse(Buffer.from(stored.access_token.split('.')[1], 'base64url').toString());
    expect(claims.aal).toBe('aal2');
    await context.close();
  });
});

describe('sign-in with a WebAuthn factor', () => {
  // WebAuthn needs a domain as relying party id (not an IP address): a product on localhost.
  let keyed: Product;
  beforeAll(async () => {
    keyed = await startProduct({ MAILER_AUTOCONFIRM: 'true' }, undefined, { hostname: 'localhost' });
  });
  afterAll(async () => {
    await keyed?.stop();
  });

  it('after the password, the security key (Chromium virtual authenticator) completes the sign-in', async () => {
    const umd = (await import('node:module'))
      .createRequire(import.meta.url)
      .resolve('@supabase/supabase-js/dist/umd/supabase.js');
    const context = await browser.newContext({ ...desktop, bypassCSP: true });
    const p = await context.newPage();
    await addVirtualAuthenticator(context, p);
    const email = newEmail('webauthn');
    // Enrol the key with the client's own helper (a separate, non-persisting client on the page).
    await p.goto(`${keyed.origin}/`, { waitUntil: 'domcontentloaded' });
    await p.addScriptTag({ path: umd });
    const enrolled = await p.evaluate(
      async ({ anonKey, email, password }) => {
        // biome-ignore lint/suspicious/noExplicitAny: the UMD global
        const sb = (window as any).supabase.createClient(location.origin, anonKey, {
          auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        });
        const up = await sb.auth.signUp({ email, password });
        if (up.error) return up.error.message;
        // Enrolment step by step, as e2e/webauthn.test.ts does (enroll, challenge, the browser's
        // create(), verify).
        const rp = { rpId: location.hostname, rpOrigins: [location.origin] };
        const en = await sb.auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'Virtual key' });
        if (en.error) return en.error.message;
        const ch = await sb.auth.mfa.challenge({ factorId: en.data.id, webauthn: rp });
        if (ch.error) return ch.error.message;
        const created = await navigator.credentials.create({
          publicKey: ch.data.webauthn.credential_options.publicKey,
        });
        const reg = await sb.auth.mfa.verify({
          factorId: en.data.id,
          challengeId: ch.data.id,
          webauthn: { type: 'create', ...rp, credential_response: created },
        });
        return reg.error ? reg.error.message : 'ok';
      },
      { anonKey: ANON_KEY, email, password: PASSWORD },
    );
    expect(enrolled).toBe('ok');

    await p.goto(`${keyed.origin}/auth`);
    await interactAndHydrate(p);
    await p.locator('input[name=email]').fill(email);
    await p.locator('input[name=password]').fill(PASSWORD);
    await p.locator('button[type=submit]').click();
    await p.getByTestId('mfa-step').waitFor({ timeout: 15_000 });
    expect(await p.locator('input[name=code]').count()).toBe(0);
    expect(new URL(p.url()).pathname).toBe('/auth');
    const log = recordConsole(p);
    await p.getByRole('button', { name: 'Use security key' }).click();
    await p.waitForURL(`${keyed.origin}/`, { timeout: 15_000 }).catch(async (e) => {
      throw new Error(`${e}\n${await p.getByTestId('mfa-step').textContent()}\n${JSON.stringify(log)}`);
    });
    await toast(p, 'Welcome back!').waitFor();
    await p.getByTestId('nav-email').first().waitFor();
    await context.close();
  });
});

describe('accessibility and prerendering of the account pages', () => {
  it('prerenders the recovery pages in both languages, with no script before interaction on the form', async () => {
    for (const [path, heading] of [
      ['/auth/forgot', 'Reset your password'],
      ['/ar/auth/forgot', 'استعادة كلمة المرور'],
      ['/auth/reset', 'Set a new password'],
      ['/ar/auth/reset', 'تعيين كلمة مرور جديدة'],
    ] as const) {
      const response = await fetch(`${product.origin}${path}`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain(`>${heading}</h1>`);
      expect(html).toContain(
        path.startsWith('/ar') ? '<html lang="ar" dir="rtl">' : '<html lang="en" dir="ltr">',
      );
    }
    // The forgot form starts its framework at the first interaction; a visitor who only reads loads none.
    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    const scripts: string[] = [];
    p.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    await p.goto(`${product.origin}/auth/forgot`, { waitUntil: 'load' });
    await p.waitForTimeout(500);
    expect(scripts).toEqual([]);
    // The set-password page opened without a link answers at once, before (and without) any script.
    await p.goto(`${product.origin}/ar/auth/reset`, { waitUntil: 'load' });
    await p.waitForTimeout(500);
    expect(await p.getByTestId('reset-no-session').isVisible()).toBe(true);
    expect(await p.getByTestId('reset-checking').isVisible()).toBe(false);
    expect(scripts).toEqual([]);
    await context.close();
  });

  it('renders the skip link first, keeps the mobile menu in the navigation landmark, and moves focus sensibly after sign-out', async () => {
    const email = await confirmedAccount('focus');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    await p.goto(`${product.origin}/`);
    await p.keyboard.press('Tab');
    expect(
      await p.evaluate(() => [
        document.activeElement?.textContent,
        document.activeElement?.getAttribute('href'),
      ]),
    ).toEqual(['Skip to content', '#main']);
    expect(await p.locator('nav[aria-label="Main"] #site-menu').count()).toBe(1);
    await signInOnPage(p, '', email, PASSWORD);
    await p.waitForURL(`${product.origin}/`);
    await p.getByRole('button', { name: 'Sign Out' }).first().focus();
    await p.keyboard.press('Enter');
    await p.getByTestId('nav-signin-bar').waitFor();
    await expect
      .poll(() => p.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('nav-signin-bar');
    await context.close();
  });

  it('marks the invalid field and focuses it after a failed submit; passes internationalised addresses to the service', async () => {
    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    await p.goto(`${product.origin}/auth`);
    await interactAndHydrate(p);
    const email = p.locator('input[name=email]');
    const password = p.locator('input[name=password]');
    await email.fill('user@example.com');
    await password.fill('123');
    await p.locator('button[type=submit]').click();
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
    expect(await p.locator(`[id="${describedBy}"]`).textContent()).toBe(
      'Password must be at least 6 characters',
    );
    expect(await p.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('password');
    expect(await email.getAttribute('aria-invalid')).toBeNull();

    // The form lets an internationalised address through; this service (ASCII-only, as GoTrue)
    // then answers with its own message, and the form does not refuse it first.
    const calls: string[] = [];
    p.on('request', (r) => {
      if (r.url().includes('/auth/v1/token')) calls.push(r.url());
    });
    await email.fill('مستخدم@مثال.السعودية');
    await password.fill(PASSWORD);
    await p.locator('button[type=submit]').click();
    await expect.poll(() => calls.length).toBe(1);
    await expect.poll(() => p.getByTestId('auth-error').textContent()).not.toBe('');
    expect(await p.getByTestId('auth-error').textContent()).not.toBe('Invalid email address');
    // A service error is not a field's: focus goes to the error summary.
    expect(await p.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('auth-error');
    await context.close();
  });
});

describe('an expired recovery link', () => {
  // The shortest link lifetime the service allows (MAILER_OTP_EXP ≥ 60 s): the test waits it out.
  let shortLived: Product;
  beforeAll(async () => {
    shortLived = await startProduct({
      SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
      MAILER_AUTOCONFIRM: 'true',
      MAILER_OTP_EXP: '60',
    });
  });
  afterAll(async () => {
    await shortLived?.stop();
  });

  it('opened after its lifetime in the browser that asked for it, says so and offers a fresh link', {
    timeout: 150_000,
  }, async () => {
    const email = newEmail('expired');
    const sb = createClient(shortLived.origin, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    expect((await sb.auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const context = await browser.newContext(desktop);
    const p = await context.newPage();
    await p.goto(`${shortLived.origin}/ar/auth/forgot`);
    await interactAndHydrate(p);
    await p.locator('input[name=email]').fill(email);
    await p.locator('button[type=submit]').click();
    await p.getByTestId('forgot-status').filter({ hasText: 'إذا كان هناك حساب' }).waitFor();
    const link = mailbox.verifyLink(await mailbox.nextOfType(email, 'recovery'), shortLived.origin);
    await new Promise((resolve) => setTimeout(resolve, 62_000));
    await p.goto(link);
    await p.waitForURL(`${shortLived.origin}/ar/auth/reset`);
    await p.getByTestId('reset-no-session').waitFor();
    expect(await p.getByTestId('reset-no-session').textContent()).toContain(
      'انتهت صلاحية رابط الاستعادة هذا',
    );
    expect(p.url()).not.toMatch(/error|code=/);
    expect(await storedSession(p)).toBeNull();
    await p.getByRole('link', { name: 'أرسل لي رابطًا جديدًا' }).click();
    await p.waitForURL(`${shortLived.origin}/ar/auth/forgot`);
    await context.close();
  });
});
