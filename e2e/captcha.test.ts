// Issue #27: the CAPTCHA widget on the site, in Chromium, both editions, against the real product
// started with SECURITY_CAPTCHA_ENABLED (Turnstile) and a local fake `siteverify` endpoint. This
// machine has no internet: Turnstile's api.js is answered by a stand-in that implements the part of
// its JS API the site uses (explicit render calling `callback(token)`, `reset`, `remove`, the
// `onload` callback) and records what it was asked for. Checked: nothing of the provider before the
// visitor touches a form; its script at the first focus in the form, in the page's language and
// direction; sign-up, password sign-in and recovery pass with tokens the verifier saw; a token the
// verifier rejects is said in words, and the widget gives a fresh one; CAPTCHA off, no script ever.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/accessibility.ts';
import { desktop, interactAndHydrate, launchBrowser, recordConsole } from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

// expect.poll's own 1 s is too short for a page starting its framework on the loaded machine.
const POLL = { timeout: 20_000 };
const SITE_KEY = '0x4AAAAAAAe2e-site-key';
const SECRET = 'e2e-captcha-secret';
const PROVIDER_HOST = 'challenges.cloudflare.com';

/**
 * Turnstile's api.js as far as the site uses it. Tokens are `pass-…`, except the first
 * `window.__captchaRejectFirst` ones, `reject-…`, which the fake verifier refuses.
 */
const STAND_IN = `(() => {
  const log = (window.__turnstile = { renders: [], resets: 0, tokens: [] });
  const widgets = new Map();
  let n = 0;
  const issue = (id) => {
    const options = widgets.get(id);
    if (!options) return;
    const reject = log.tokens.length < (window.__captchaRejectFirst || 0);
    const token = (reject ? 'reject-' : 'pass-') + Math.random().toString(36).slice(2);
    log.tokens.push(token);
    setTimeout(() => options.callback(token), 50);
  };
  window.turnstile = {
    render(el, options) {
      const id = 'w' + ++n;
      widgets.set(id, options);
      log.renders.push({
        sitekey: options.sitekey,
        language: options.language,
        direction: getComputedStyle(el).direction,
      });
      el.textContent = 'stand-in challenge';
      issue(id);
      return id;
    },
    reset(id) {
      log.resets += 1;
      issue(id);
    },
    remove(id) {
      widgets.delete(id);
    },
  };
  const onload = new URL(document.currentScript.src).searchParams.get('onload');
  if (onload) window[onload]();
})();`;

type Verifier = { url: string; tokens: string[]; secrets: string[]; close(): Promise<void> };

/** The provider's siteverify form API: `pass-…` tokens succeed, anything else is refused. */
async function startVerifier(): Promise<Verifier> {
  const tokens: string[] = [];
  const secrets: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const token = form.get('response') ?? '';
      tokens.push(token);
      secrets.push(form.get('secret') ?? '');
      const ok = form.get('secret') === SECRET && token.startsWith('pass-');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify(
            ok ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] },
          ),
        );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    tokens,
    secrets,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let verifier: Verifier;
let product: Product;
let browser: Browser;

beforeAll(async () => {
  verifier = await startVerifier();
  [product, browser] = await Promise.all([
    startProduct({
      SECURITY_CAPTCHA_ENABLED: 'true',
      SECURITY_CAPTCHA_PROVIDER: 'turnstile',
      SECURITY_CAPTCHA_SECRET: SECRET,
      SECURITY_CAPTCHA_SITE_KEY: SITE_KEY,
      SECURITY_CAPTCHA_VERIFY_URL: verifier.url,
      // Signing up signs in at once, so one account serves the sign-in that follows.
      MAILER_AUTOCONFIRM: 'true',
      PGLITE_FSYNC: 'false',
    }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await verifier?.close();
});

const LOCALES = [
  {
    prefix: '',
    lang: 'en',
    direction: 'ltr',
    prompt: 'Complete the security check to continue.',
    failed: 'The security check did not pass. Please complete it again and retry.',
    sent: 'If an account exists for that address, we sent a link to set a new password.',
  },
  {
    prefix: '/ar',
    lang: 'ar',
    direction: 'rtl',
    prompt: 'أكمل التحقق الأمني للمتابعة.',
    failed: 'لم يكتمل التحقق الأمني. يرجى إكماله مرة أخرى ثم إعادة المحاولة.',
    sent: 'إذا كان هناك حساب بهذا البريد، فقد أرسلنا إليه رابطًا لتعيين كلمة مرور جديدة.',
  },
] as const;

type StandInLog = {
  renders: { sitekey: string; language: string; direction: string }[];
  resets: number;
  tokens: string[];
};

/**
 * A browser context whose requests to the provider are answered by the stand-in, and recorded: every
 * request to its host, and every request for the site's own widget chunk.
 */
async function newVisitor(options: { rejectFirst?: number } = {}) {
  const context: BrowserContext = await browser.newContext(desktop);
  const providerRequests: string[] = [];
  const widgetChunks: string[] = [];
  context.on('request', (r) => {
    const url = new URL(r.url());
    if (url.hostname === PROVIDER_HOST) providerRequests.push(r.url());
    if (/captcha-widget[^/]*\.js$/.test(url.pathname)) widgetChunks.push(r.url());
  });
  await context.route(
    (url) => url.hostname === PROVIDER_HOST,
    (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: STAND_IN }),
  );
  if (options.rejectFirst)
    await context.addInitScript(`window.__captchaRejectFirst = ${options.rejectFirst};`);
  const page = await context.newPage();
  const console = recordConsole(page);
  const standIn = () => page.evaluate(() => (window as unknown as { __turnstile?: StandInLog }).__turnstile);
  return { context, page, providerRequests, widgetChunks, console, standIn };
}

/** The token the widget handed over last (the stand-in's newest), once the form holds it. */
async function currentToken(page: Page, standIn: () => Promise<StandInLog | undefined>): Promise<string> {
  await expect
    .poll(async () => (await page.getByTestId('captcha-status').textContent()) ?? 'none', POLL)
    .toBe('');
  return (await standIn())?.tokens.at(-1) ?? '';
}

const submit = (page: Page) => page.locator('form button[type="submit"]');
const cspViolations = (messages: { text: string }[]) =>
  messages.filter((m) => /Content Security Policy/i.test(m.text)).map((m) => m.text);

let counter = 0;
const newEmail = (label: string) => `captcha-${label}-${Date.now()}-${++counter}@example.com`;
const PASSWORD = 'Widget-Token-Pass-77';

describe('the CAPTCHA widget', () => {
  for (const locale of LOCALES) {
    it(`${locale.lang}: nothing of the provider until the form is touched, then its script in ${locale.lang}; sign-up and sign-in pass`, async () => {
      const visitor = await newVisitor();
      const { page, providerRequests } = visitor;
      const settingsAnswers: number[] = [];
      page.on('response', (r) => {
        if (r.url().includes('/auth/v1/settings')) settingsAnswers.push(r.status());
      });
      await page.goto(`${product.origin}${locale.prefix}/auth?mode=signup`);
      // The prerendered page has no widget and names no provider: it appears only when the
      // settings ask for it.
      const html = await page.content();
      expect(html).not.toContain('data-testid="captcha');
      expect(html).not.toMatch(/turnstile|hcaptcha/i);
      // An interaction that is not in the form starts the framework and reads the settings…
      await interactAndHydrate(page);
      await expect.poll(() => settingsAnswers, POLL).toEqual([200]);
      await page.getByTestId('captcha').waitFor();
      expect(await page.getByTestId('captcha-status').textContent()).toBe(locale.prompt);
      expect(await submit(page).isDisabled()).toBe(true);
      await page.waitForTimeout(500);
      // …but the provider's script waits for the form.
      expect(providerRequests).toEqual([]);

      await page.locator('input[name="email"]').focus();
      await expect.poll(() => providerRequests.length, POLL).toBe(1);
      expect(new URL(providerRequests[0] as string).pathname).toBe('/turnstile/v0/api.js');
      const token = await currentToken(page, visitor.standIn);
      const log = await visitor.standIn();
      expect(log?.renders).toEqual([
        { sitekey: SITE_KEY, language: locale.lang, direction: locale.direction },
      ]);
      expect(await page.getByTestId('captcha-box').getAttribute('dir')).toBe(locale.direction);
      expect(await submit(page).isDisabled()).toBe(false);

      const email = newEmail(`${locale.lang}-signup`);
      await page.locator('input[name="email"]').fill(email);
      await page.locator('input[name="password"]').fill(PASSWORD);
      await submit(page).click();
      await page.waitForURL(`${product.origin}${locale.prefix}/`);
      await page.getByTestId('nav-email').first().waitFor();
      expect(verifier.tokens).toContain(token);
      expect(verifier.secrets.at(-1)).toBe(SECRET);
      expect(providerRequests).toHaveLength(1);
      expect(visitor.console.errors).toEqual([]);
      expect(cspViolations(visitor.console.messages)).toEqual([]);
      await visitor.context.close();

      // Signing in: here the very first interaction is the click into the form (it also starts the
      // framework); the widget counts it.
      const again = await newVisitor();
      await again.page.goto(`${product.origin}${locale.prefix}/auth`);
      await again.page.locator('input[name="email"]').click();
      await expect.poll(() => again.providerRequests.length, POLL).toBe(1);
      const signInToken = await currentToken(again.page, again.standIn);
      await again.page.locator('input[name="email"]').fill(email);
      await again.page.locator('input[name="password"]').fill(PASSWORD);
      await submit(again.page).click();
      await again.page.waitForURL(`${product.origin}${locale.prefix}/`);
      expect(verifier.tokens).toContain(signInToken);
      expect(again.console.errors).toEqual([]);
      await again.context.close();
    });

    it(`${locale.lang}: a token the verifier refuses is said in words; the widget resets and the next token passes`, async () => {
      const visitor = await newVisitor({ rejectFirst: 1 });
      const { page } = visitor;
      await page.goto(`${product.origin}${locale.prefix}/auth/forgot`);
      await page.locator('input[name="email"]').click();
      const refused = await currentToken(page, visitor.standIn);
      expect(refused).toMatch(/^reject-/);
      await page.locator('input[name="email"]').fill(newEmail(`${locale.lang}-forgot`));
      await submit(page).click();
      await expect.poll(() => page.getByTestId('auth-error').textContent(), POLL).toBe(locale.failed);
      expect(verifier.tokens).toContain(refused);
      // The spent token is gone: the widget was reset and handed over a new one.
      const fresh = await currentToken(page, visitor.standIn);
      expect(fresh).toMatch(/^pass-/);
      expect((await visitor.standIn())?.resets).toBe(1);
      // The widget's frame, its prompt and the error pass the pages' axe rules (e2e/pages.test.ts).
      expect(await axeViolations(page)).toEqual([]);
      await submit(page).click();
      await expect.poll(() => page.getByTestId('forgot-status').textContent(), POLL).toContain(locale.sent);
      expect(verifier.tokens).toContain(fresh);
      expect(visitor.providerRequests).toHaveLength(1);
      expect(cspViolations(visitor.console.messages)).toEqual([]);
      await visitor.context.close();
    });
  }
});

describe('with CAPTCHA off', () => {
  // A second product only for this takes minutes on the loaded 2-core machine; the service's real
  // settings are passed through without their `captcha` field, which is exactly the answer of a
  // service with CAPTCHA off (apps/auth/test/features/ops/service-endpoints.test.ts).
  it('never requests the provider’s script nor the widget’s chunk, however the form is used', async () => {
    const visitor = await newVisitor();
    const { page } = visitor;
    let served = false;
    await page.route('**/auth/v1/settings', async (route) => {
      const response = await route.fetch();
      const settings = await response.json();
      expect(settings.captcha).toEqual({ provider: 'turnstile', site_key: SITE_KEY });
      delete settings.captcha;
      served = true;
      await route.fulfill({ response, json: settings });
    });
    await page.goto(`${product.origin}/auth`);
    await interactAndHydrate(page);
    await expect.poll(() => served, POLL).toBe(true);
    await page.locator('input[name="email"]').click();
    await page.locator('input[name="email"]').fill('someone@example.com');
    await page.locator('input[name="password"]').fill(PASSWORD);
    await page.waitForTimeout(800);
    expect(await page.getByTestId('captcha').count()).toBe(0);
    expect(await submit(page).isDisabled()).toBe(false);
    expect(visitor.providerRequests).toEqual([]);
    expect(visitor.widgetChunks).toEqual([]);
    await visitor.context.close();
  });
});
