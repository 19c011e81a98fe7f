import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktop, launchBrowser, waitForHydration } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

// Runs against a product with MAILER_AUTOCONFIRM=true (sign-up returns a session) and a short
// JWT_EXPIRY, to prove the error catalogue of spec §8 and the client's refresh behaviour of §4.
const JWT_EXPIRY = 150;
const STORAGE_KEY = 'sb-127-auth-token';
let product: Product;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([
    startProduct({ MAILER_AUTOCONFIRM: 'true', JWT_EXPIRY: String(JWT_EXPIRY) }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const toast = (p: Page, title: string, text: string) =>
  p.locator('[data-sonner-toast]').filter({ hasText: title }).filter({ hasText: text });

async function signUp(page: Page, email: string, password: string) {
  await page.goto(`${product.origin}/auth?mode=signup`);
  await waitForHydration(page);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign Up' }).click();
}

describe('error catalogue and success toasts (spec §8)', () => {
  let context: BrowserContext;
  let page: Page;
  const email = `agency-${Date.now()}@example.com`;

  beforeAll(async () => {
    context = await browser.newContext(desktop);
    page = await context.newPage();
  });
  afterAll(() => context.close());

  it('shows Success! and, as the session appears, sends the visitor home', async () => {
    await signUp(page, email, 'sunrise-riyadh');
    await toast(page, 'Success!', 'Please check your email to confirm your account.').waitFor();
    await page.waitForURL(`${product.origin}/`);
    await page.getByTestId('nav-email').first().waitFor();
  });

  it('maps "User already registered" to the spec text', async () => {
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.getByRole('link', { name: 'Sign In' }).first().waitFor();
    await signUp(page, email, 'another-password');
    await toast(page, 'Error', 'This email is already registered. Please sign in instead.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/auth');
  });
});

describe('session refresh and visibility (spec §4, official client mechanisms)', () => {
  it('refreshes the stored access token without a reload, pauses while hidden and recovers when visible', async () => {
    const context = await browser.newContext(desktop);
    // A controllable clock: the client's 30 s refresh ticker and its Date.now() run on it.
    await context.clock.install();
    const page = await context.newPage();
    const refreshes: number[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/auth/v1/token?grant_type=refresh_token')) refreshes.push(Date.now());
    });
    const storedToken = () =>
      page.evaluate(
        (key) => JSON.parse(localStorage.getItem(key) ?? '{}').access_token as string | undefined,
        STORAGE_KEY,
      );
    const setVisibility = (state: 'visible' | 'hidden') =>
      page.evaluate((value) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => value });
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => value === 'hidden' });
        // Real visibilitychange events bubble; the client listens on window.
        document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
      }, state);

    await signUp(page, `refresh-${Date.now()}@example.com`, 'tide-and-time');
    await page.waitForURL(`${product.origin}/`);
    await page.getByTestId('nav-email').first().waitFor();
    const first = await storedToken();
    expect(first).toBeTruthy();
    expect(refreshes).toHaveLength(0);

    // The client's ticker runs every 30 s from the client's creation and refreshes once fewer than
    // 3 ticks (90 s) of the 150 s token remain at a tick. Which tick first qualifies depends on
    // sub-second timing (expires_at is whole seconds), so run 70 s: the tick at 60 s after the
    // client's creation always qualifies; the one at 30 s may too.
    await page.clock.runFor(70_000);
    await expect.poll(() => refreshes.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(storedToken, { timeout: 10_000 }).not.toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refreshedWhileVisible = refreshes.length;
    expect(refreshedWhileVisible).toBeLessThanOrEqual(2);
    const second = await storedToken();
    expect(new URL(page.url()).pathname).toBe('/');

    // Hidden tab: the ticker stops, so three minutes pass without a refresh although the token
    // (as the page's clock sees it) has expired.
    await setVisibility('hidden');
    await page.clock.runFor(180_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(refreshes).toHaveLength(refreshedWhileVisible);
    expect(await storedToken()).toBe(second);

    // Visible again: the client recovers the session and refreshes it at once.
    await setVisibility('visible');
    await expect.poll(() => refreshes.length, { timeout: 10_000 }).toBe(refreshedWhileVisible + 1);
    await expect.poll(storedToken, { timeout: 10_000 }).not.toBe(second);
    expect(await page.getByTestId('nav-email').first().isVisible()).toBe(true);
    await context.close();
  });
});
