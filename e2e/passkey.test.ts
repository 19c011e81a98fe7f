// Passkeys on the site's own pages, in real Chromium with a CDP virtual authenticator (a platform
// authenticator holding discoverable credentials): sign up, "Add a passkey" in the signed-in
// navigation, sign out, then "Sign in with a passkey" on /auth and on /ar/auth, no password typed.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktop, interactAndHydrate, launchBrowser } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';
import { addVirtualAuthenticator } from './support/virtual-authenticator.ts';

let product: Product;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  // WebAuthn refuses an IP address as relying party: the site is served as localhost.
  product = await startProduct({ MAILER_AUTOCONFIRM: 'true', PASSKEY_ENABLED: 'true' }, undefined, {
    hostname: 'localhost',
  });
  browser = await launchBrowser();
  context = await browser.newContext(desktop);
  page = await context.newPage();
  await addVirtualAuthenticator(context, page);
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

async function signOut() {
  await page
    .getByTestId('nav-session-bar')
    .getByRole('button', { name: /Sign Out|تسجيل الخروج/ })
    .click();
  await page.getByTestId('nav-signin-bar').waitFor();
}

async function signedInAs(email: string) {
  await page.getByTestId('nav-email').first().waitFor();
  expect(await page.getByTestId('nav-email').first().textContent()).toBe(email);
}

describe('passkeys on the site', () => {
  const email = `passkey-${Date.now()}@example.com`;

  it('a signed-in visitor adds a passkey from the navigation', async () => {
    await page.goto(`${product.origin}/auth?mode=signup`);
    await interactAndHydrate(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('Namaa-passkey-Pass-7731');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await page.waitForURL(`${product.origin}/`);
    await signedInAs(email);
    await page.getByTestId('nav-session-bar').getByTestId('passkey-add').click();
    await page.getByText('Passkey added.', { exact: false }).first().waitFor();
    await signOut();
  });

  it('signs in with the passkey on /auth, without an email or password', async () => {
    await page.goto(`${product.origin}/auth`);
    await interactAndHydrate(page);
    const button = page.getByTestId('passkey-signin');
    expect(await button.textContent()).toBe('Sign in with a passkey');
    await button.click();
    await page.waitForURL(`${product.origin}/`);
    await signedInAs(email);
    await signOut();
  });

  it('and on /ar/auth, in Arabic', async () => {
    await page.goto(`${product.origin}/ar/auth`);
    await interactAndHydrate(page);
    const button = page.getByTestId('passkey-signin');
    expect(await button.textContent()).toBe('تسجيل الدخول بمفتاح المرور');
    await button.click();
    await page.waitForURL(`${product.origin}/ar/`);
    await signedInAs(email);
  });
});
