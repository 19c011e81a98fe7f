import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktop, launchBrowser, mobile, recordConsole, waitForHydration } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

// The auth page starts its framework only at the first interaction (frontend budget: no script on a
// page that is only looked at). These tests hold every framework chunk to prove what the static HTML
// does on its own: it must never submit the password natively, and a first tap on the mode toggle
// must not be lost.
let product: Product;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

/** Holds framework chunks until `release()`; counts the requests made meanwhile. */
async function holdScripts(page: Page) {
  const held: Array<() => void> = [];
  let released = false;
  let requested = 0;
  await page.route('**/assets/*.js', (route) => {
    requested++;
    if (released) void route.continue();
    else held.push(() => void route.continue());
  });
  return {
    requested: () => requested,
    release: () => {
      released = true;
      for (const continueRoute of held.splice(0)) continueRoute();
    },
  };
}

describe('auth page before hydration', () => {
  it('loads no script until the visitor interacts', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    const scripts = await holdScripts(page);
    await page.goto(`${product.origin}/auth`);
    await page.waitForLoadState('load');
    await page.waitForTimeout(500);
    expect(scripts.requested()).toBe(0);
    await page.getByLabel('Email').focus();
    await expect.poll(() => scripts.requested()).toBeGreaterThan(0);
    scripts.release();
    await waitForHydration(page);
    await context.close();
  });

  it('never submits natively: no password in a URL, no request, then works once hydrated', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    const log = recordConsole(page);
    const scripts = await holdScripts(page);
    const documents: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'document' || request.url().includes('/auth/v1/'))
        documents.push(`${request.method()} ${request.url()}`);
    });
    await page.goto(`${product.origin}/auth`);
    documents.length = 0;
    const form = page.locator('form');
    expect(await form.getAttribute('method')).toBe('post');
    const submit = page.getByRole('button', { name: 'Sign In', exact: true });
    expect(await submit.isDisabled()).toBe(true);

    await page.getByLabel('Email').fill('prehydration@example.com');
    await page.getByLabel('Password').fill('secret-password-123');
    await page.getByLabel('Password').press('Enter');
    await submit.click({ force: true });
    await page.waitForTimeout(300);
    expect(documents).toEqual([]);
    expect(page.url()).toBe(`${product.origin}/auth`);
    expect(page.url()).not.toContain('secret-password');

    // Once React is there, the submit asked for before it is sent through the auth client, once, with
    // no further tap (wrong account: the spec's error toast), and the typed values survived hydration.
    scripts.release();
    await waitForHydration(page);
    await page.getByTestId('auth-error').filter({ hasText: /\S/ }).waitFor();
    expect(await page.getByLabel('Password').inputValue()).toBe('secret-password-123');
    expect(await submit.isDisabled()).toBe(false);
    expect(
      documents.filter((entry) => entry.startsWith('POST') && entry.includes('/auth/v1/token')),
    ).toHaveLength(1);
    expect(documents.some((entry) => entry.includes('secret-password'))).toBe(false);
    expect(log.errors).toEqual([]);
    await context.close();
  });

  it('sends autofilled credentials on the first tap of the still-disabled Sign In button', async () => {
    const context = await browser.newContext(mobile);
    const page = await context.newPage();
    const log = recordConsole(page);
    const tokenRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/auth/v1/token')) tokenRequests.push(request.method());
    });
    await page.goto(`${product.origin}/auth`);
    await page.waitForLoadState('load');
    // A password manager fills the fields without focusing them: no interaction has started React.
    await page.evaluate(() => {
      for (const [id, value] of [
        ['email', 'autofilled@example.com'],
        ['password', 'autofilled-password-1'],
      ] as const)
        (document.querySelector(`input[name="${id}"]`) as HTMLInputElement).value = value;
    });
    const submit = page.getByRole('button', { name: 'Sign In', exact: true });
    expect(await submit.isDisabled()).toBe(true);
    const box = (await submit.boundingBox()) as { x: number; y: number; width: number; height: number };
    await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    await page.getByTestId('auth-error').filter({ hasText: /\S/ }).waitFor();
    expect(tokenRequests).toEqual(['POST']);
    expect(log.errors).toEqual([]);
    await context.close();
  });

  it('replays a first tap on the mode toggle once the framework has hydrated', async () => {
    const context = await browser.newContext(mobile);
    const page = await context.newPage();
    const log = recordConsole(page);
    const scripts = await holdScripts(page);
    await page.goto(`${product.origin}/auth`);
    expect(await page.locator('h1').textContent()).toBe('Welcome Back');
    await page.getByTestId('auth-toggle').tap();
    await expect.poll(() => scripts.requested()).toBeGreaterThan(0);
    expect(await page.locator('h1').textContent()).toBe('Welcome Back');
    scripts.release();
    await waitForHydration(page);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Create Account');
    expect(new URL(page.url()).search).toBe('?mode=signup');
    // Replayed once only: a further wait does not flip it back.
    await page.waitForTimeout(300);
    expect(await page.locator('h1').textContent()).toBe('Create Account');
    expect(log.errors).toEqual([]);
    await context.close();
  });

  it('hydrates at once (no interaction) for ?mode=signup', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    await page.goto(`${product.origin}/auth?mode=signup`);
    await waitForHydration(page);
    expect(await page.locator('h1').textContent()).toBe('Create Account');
    await context.close();
  });
});
