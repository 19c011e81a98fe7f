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

// The whole account journey of spec §2/§4/§8 against the real product, with email confirmation on.
let product: Product;
let mailbox: Mailbox;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const email = `founder-${Date.now()}@example.com`;
const password = 'correct-horse-7';

const toast = (p: Page, title: string) => p.locator('[data-sonner-toast]').filter({ hasText: title });

beforeAll(async () => {
  mailbox = await startMailbox();
  [product, browser] = await Promise.all([
    startProduct({ SMTP_URL: `smtp://127.0.0.1:${mailbox.port}` }),
    launchBrowser(),
  ]);
  context = await browser.newContext(desktop);
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await mailbox?.close();
});

// The auth page starts its framework at the first interaction (or at once for ?mode= or a session).
async function openAuth(p: Page, query = '') {
  await p.goto(`${product.origin}/auth${query}`);
  await interactAndHydrate(p);
}

describe('sign up, confirm by email, sign out, sign in', () => {
  it('validates on submit before any call and shows the first message as an Error toast and an alert', async () => {
    const calls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/auth/v1/signup') || r.url().includes('/auth/v1/token')) calls.push(r.url());
    });
    await openAuth(page, '?mode=signup');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Create Account');
    await expect(page.getByText('Join Namaa today').isVisible()).resolves.toBe(true);
    await expect(page.getByText('Must be at least 6 characters').isVisible()).resolves.toBe(true);

    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('1');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await toast(page, 'Error').filter({ hasText: 'Invalid email address' }).waitFor();
    expect(await page.getByTestId('auth-error').textContent()).toBe('Invalid email address');

    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await toast(page, 'Error').filter({ hasText: 'Password must be at least 6 characters' }).waitFor();
    expect(await page.getByTestId('auth-error').textContent()).toBe('Password must be at least 6 characters');
    expect(calls).toEqual([]);
  });

  it('has the spec attributes on the inputs', async () => {
    const emailInput = page.getByLabel('Email');
    const passwordInput = page.getByLabel('Password');
    expect(
      await emailInput.evaluate((el: HTMLInputElement) => [el.required, el.maxLength, el.autocomplete]),
    ).toEqual([true, 255, 'email']);
    expect(
      await passwordInput.evaluate((el: HTMLInputElement) => [
        el.required,
        el.minLength,
        el.maxLength,
        el.autocomplete,
      ]),
    ).toEqual([true, 6, 100, 'new-password']);
  });

  it('shows the pending state while the sign-up request runs, then the Success! toast', async () => {
    // Hold the request so the pending state can be observed, then let it through unchanged.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/auth/v1/signup**', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign Up' }).click();
    const submit = page.locator('button[type=submit]');
    await expect.poll(() => submit.textContent()).toBe('Please wait...');
    expect(await submit.isDisabled()).toBe(true);
    expect(await page.getByLabel('Email').isDisabled()).toBe(true);
    expect(await page.getByLabel('Password').isDisabled()).toBe(true);
    expect(await page.getByTestId('auth-toggle').isDisabled()).toBe(true);
    release();
    await toast(page, 'Success!')
      .filter({ hasText: 'Please check your email to confirm your account.' })
      .waitFor();
    await page.unroute('**/auth/v1/signup**');
    expect(await submit.textContent()).toBe('Sign Up');
    expect(await submit.isDisabled()).toBe(false);
    // No session yet: still on the auth page.
    expect(new URL(page.url()).pathname).toBe('/auth');
  });

  it("shows the service's own message for any other error (sign-in before confirming)", async () => {
    await page.getByRole('button', { name: 'Already have an account? Sign in' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await toast(page, 'Error').filter({ hasText: 'Email not confirmed' }).waitFor();
    expect(await page.getByTestId('auth-error').textContent()).toBe('Email not confirmed');
  });

  it('follows the emailed link and lands signed in on / with the email in the navigation', async () => {
    const mail = await mailbox.waitFor(email);
    const link = mailbox.verifyLink(mail, product.origin);
    const fresh = await context.newPage();
    const log = recordConsole(fresh);
    await fresh.goto(link);
    await waitForHydration(fresh);
    expect(new URL(fresh.url()).pathname).toBe('/');
    await fresh.getByTestId('nav-email').first().waitFor();
    expect(await fresh.getByTestId('nav-email').first().textContent()).toBe(email);
    expect(await fresh.getByRole('button', { name: 'Sign Out' }).isVisible()).toBe(true);
    // The tokens were taken out of the URL and stored under the standard key.
    expect(new URL(fresh.url()).hash).toBe('');
    const stored = await fresh.evaluate(() => localStorage.getItem('sb-127-auth-token'));
    expect(JSON.parse(stored ?? '{}').user.email).toBe(email);
    expect(log.errors).toEqual([]);
    // …and out of the browser's history: Back must not show a URL that signs anyone in.
    await fresh.goBack();
    expect(fresh.url()).not.toContain('access_token');
    await fresh.close();
  });

  it('redirects /auth to / when a session exists on load', async () => {
    await page.goto(`${product.origin}/auth`);
    await page.waitForURL(`${product.origin}/`);
    await page.getByTestId('nav-email').first().waitFor();
  });

  it('signs out from the navigation', async () => {
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.getByRole('link', { name: 'Sign In' }).first().waitFor();
    expect(await page.getByRole('link', { name: 'Sign Up' }).first().getAttribute('href')).toBe(
      '/auth?mode=signup',
    );
    expect(await page.evaluate(() => localStorage.getItem('sb-127-auth-token'))).toBeNull();
  });

  it('rejects a wrong password with the spec message, then signs in and goes home', async () => {
    await openAuth(page);
    expect(await page.locator('h1').textContent()).toBe('Welcome Back');
    expect(await page.getByLabel('Password').getAttribute('autocomplete')).toBe('current-password');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await toast(page, 'Error').filter({ hasText: 'Invalid email or password. Please try again.' }).waitFor();
    expect(await page.getByTestId('auth-error').textContent()).toBe(
      'Invalid email or password. Please try again.',
    );

    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.waitForURL(`${product.origin}/`);
    await toast(page, 'Welcome back!').filter({ hasText: "You've successfully signed in." }).waitFor();
    expect(await page.getByTestId('nav-email').first().textContent()).toBe(email);
  });

  it('redirects an open /auth page when a session appears later (signed in from another tab)', async () => {
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.getByRole('link', { name: 'Sign In' }).first().waitFor();
    const waiting = await context.newPage();
    await openAuth(waiting);
    await openAuth(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await page.waitForURL(`${product.origin}/`);
    await waiting.waitForURL(`${product.origin}/`, { timeout: 15_000 });
    await waiting.close();
  });

  it('switches modes with the toggle and keeps the URL in sync', async () => {
    const other = await browser.newContext(desktop);
    const p = await other.newPage();
    await p.goto(`${product.origin}/auth`);
    await interactAndHydrate(p);
    await p.getByRole('button', { name: "Don't have an account? Sign up" }).click();
    expect(await p.locator('h1').textContent()).toBe('Create Account');
    expect(new URL(p.url()).search).toBe('?mode=signup');
    await p.getByRole('button', { name: 'Already have an account? Sign in' }).click();
    expect(await p.locator('h1').textContent()).toBe('Welcome Back');
    await p.getByRole('link', { name: 'Back to Home' }).click();
    await p.waitForURL(`${product.origin}/`);
    await other.close();
  });

  it('offers no passkey button while the service has passkeys off (GET /settings says so)', async () => {
    const other = await browser.newContext(desktop);
    const p = await other.newPage();
    const settings = p.waitForResponse((r) => r.url().endsWith('/auth/v1/settings'));
    await p.goto(`${product.origin}/auth`);
    await interactAndHydrate(p);
    // A browser with WebAuthn, so only the service's answer can hide the button.
    expect(await p.evaluate(() => typeof window.PublicKeyCredential)).toBe('function');
    expect(await (await settings).json()).toMatchObject({ passkeys_enabled: false });
    // The answer has been applied once React has rendered after it; the button never appears.
    await p.waitForTimeout(500);
    expect(await p.getByTestId('passkey-signin').count()).toBe(0);
    expect(await p.getByRole('button', { name: 'Sign In', exact: true }).isVisible()).toBe(true);
    await other.close();
  });
});
