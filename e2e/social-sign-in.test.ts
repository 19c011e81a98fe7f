// Issue 15: "Continue with Google" and a generic OpenID provider on the site, against the real
// product and a real OpenID Connect provider on loopback (oidc-provider), in Chromium, both
// languages: the buttons appear only for enabled providers and only after the visitor interacts;
// the provider's answer lands through the same PKCE exchange as email links; a refusal gets the
// plain-language notice; no provider enabled, no buttons.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdentityProvider, startIdentityProvider } from '../apps/auth/test/support/oidc-provider.ts';
import { axeViolations } from './support/accessibility.ts';
import { desktop, interactAndHydrate, launchBrowser, recordConsole } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

let idp: IdentityProvider;
let product: Product;
let browser: Browser;

beforeAll(async () => {
  idp = await startIdentityProvider();
  [product, browser] = await Promise.all([
    startProduct({
      ...idp.env('GOOGLE'),
      ...idp.env('OIDC'),
      OIDC_PROVIDER_NAME: 'Acme SSO',
      PGLITE_FSYNC: 'false',
    }),
    launchBrowser(),
  ]);
  idp.allowRedirect(`${product.origin}/auth/v1/callback`);
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await idp?.close();
});

let counter = 0;
function newAccount(): { id: string; email: string } {
  const id = `e2e-${Date.now()}-${++counter}`;
  const email = `${id}@example.com`;
  idp.accounts.set(id, { email, email_verified: true, name: `Visitor ${counter}` });
  return { id, email };
}

const LOCALES = [
  {
    prefix: '',
    google: 'Continue with Google',
    acme: 'Continue with Acme SSO',
    refused: 'Signing in with that account did not work.',
  },
  {
    prefix: '/ar',
    google: 'المتابعة باستخدام Google',
    acme: 'المتابعة باستخدام Acme SSO',
    refused: 'تعذّر تسجيل الدخول بهذا الحساب.',
  },
] as const;

async function openAuth(page: Page, url: string): Promise<string[]> {
  const settingsCalls: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/auth/v1/settings')) settingsCalls.push(r.url());
  });
  await page.goto(url);
  return settingsCalls;
}

describe('social sign-in on the site', () => {
  for (const locale of LOCALES) {
    it(`signs up with Google from ${locale.prefix}/auth and lands signed in (${locale.prefix ? 'ar' : 'en'})`, async () => {
      const context = await browser.newContext(desktop);
      const page = await context.newPage();
      const { errors } = recordConsole(page);
      // The sign-in mode waits for the visitor (`?mode=signup` hydrates at once, auth-prehydration).
      const calls = await openAuth(page, `${product.origin}${locale.prefix}/auth`);
      // Nothing before the visitor interacts: no buttons in the page, no settings request.
      expect(await page.getByTestId('social-sign-in').count()).toBe(0);
      expect(calls).toEqual([]);
      await interactAndHydrate(page);
      const google = page.getByTestId('social-google');
      await google.waitFor();
      expect((await google.textContent())?.trim()).toBe(locale.google);
      expect((await page.getByTestId('social-oidc').textContent())?.trim()).toBe(locale.acme);
      expect(await page.getByTestId('social-apple').count()).toBe(0);
      // The page with its buttons keeps the site's accessibility rules (axe, WCAG 2.2 AA).
      expect(await axeViolations(page)).toEqual([]);
      // Sign-up offers the same buttons.
      await page.getByTestId('auth-toggle').click();
      await page.waitForURL(/mode=signup/);
      await page.getByTestId('social-google').waitFor();
      const account = newAccount();
      idp.nextAccount = account.id;
      await google.click();
      await page.waitForURL(`${product.origin}${locale.prefix}/`);
      await page.getByTestId('nav-email').first().waitFor();
      expect(await page.getByTestId('nav-email').first().textContent()).toBe(account.email);
      expect(page.url()).not.toMatch(/code=|error/);
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`a refusal at the provider lands on the sign-in page with a plain notice (${locale.prefix ? 'ar' : 'en'})`, async () => {
      const context = await browser.newContext(desktop);
      const page = await context.newPage();
      await openAuth(page, `${product.origin}${locale.prefix}/auth`);
      await interactAndHydrate(page);
      idp.nextAccount = 'refuse';
      await page.getByTestId('social-oidc').click();
      await page.waitForURL(`${product.origin}${locale.prefix}/auth`);
      await page.getByTestId('auth-notice').waitFor();
      await expect
        .poll(() => page.getByTestId('auth-notice').textContent(), { timeout: 15_000 })
        .toContain(locale.refused);
      expect(page.url()).not.toMatch(/error|code=/);
      await context.close();
    });
  }
});

describe('with no provider enabled', () => {
  // A second product just to have none enabled takes over 100 s to start on the loaded CI machine;
  // instead the real service's answer is passed through with every provider switched off.
  it('shows no provider buttons', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    let served = false;
    await page.route('**/auth/v1/settings', async (route) => {
      const response = await route.fetch();
      const settings = await response.json();
      for (const key of Object.keys(settings.external)) if (key !== 'email') settings.external[key] = false;
      served = true;
      await route.fulfill({ response, json: settings });
    });
    await page.goto(`${product.origin}/auth`);
    await interactAndHydrate(page);
    await expect.poll(() => served, { timeout: 15_000 }).toBe(true);
    await page.waitForTimeout(300);
    expect(await page.getByTestId('social-sign-in').count()).toBe(0);
    await context.close();
  });
});
