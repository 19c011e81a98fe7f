import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/accessibility.ts';
import {
  desktop,
  interactAndHydrate,
  launchBrowser,
  mobile,
  recordConsole,
  waitForHydration,
} from './support/browser.ts';
import { type Product, startProduct } from './support/product.ts';

// Pages, navigation, 404, SEO and accessibility, against the real product.
let product: Product;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

describe('home page', () => {
  it('renders every section in the spec order, readable before any script runs', async () => {
    const context = await browser.newContext({ ...desktop, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${product.origin}/`);
    const order = await page.evaluate(() =>
      [...document.querySelectorAll('header, main > section, footer')].map(
        (el) => el.id || el.getAttribute('aria-labelledby') || el.tagName.toLowerCase(),
      ),
    );
    expect(order).toEqual([
      'header',
      'hero-heading',
      'challenge-heading',
      'solutions',
      'products',
      'market-heading',
      'edge-heading',
      'business-heading',
      'team',
      'contact',
    ]);
    // Sections below the fold use content-visibility: auto (rendered as they near the viewport), which
    // innerText skips; render them all first so innerText still proves the text is laid out.
    await page.evaluate(() => {
      for (const el of document.querySelectorAll<HTMLElement>('main > section, body > footer'))
        el.style.contentVisibility = 'visible';
    });
    const text = await page.locator('body').innerText();
    for (const expected of [
      'Riyadh, Saudi Arabia',
      'Explore Our Products',
      'Contact Us',
      '$150B+',
      'AI marketing market by 2025',
      '25%',
      'CAGR for social media automation',
      'AI-powered products',
      'Multi-platform chaos',
      'Data disconnection',
      'Trend fatigue',
      'ROI uncertainty',
      'Audience & Competitor Analyzer',
      'Engagement Bot',
      'Instagram',
      'YouTube',
      'Bilingual Arabic and English',
      'Proprietary regional models',
      'Basic',
      'Enterprise',
      'API licensing',
      'Custom white-label bots',
      'Our philosophy',
      'Our vision',
      '© 2025 Namaa. All rights reserved.',
    ]) {
      expect(text).toContain(expected);
    }
    expect(await page.locator('#team li h3').count()).toBe(2);
    expect(await page.locator('script[src]').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Sign In' }).first().getAttribute('href')).toBe('/auth');
    expect(await page.getByRole('link', { name: 'hello@namaa.ai' }).getAttribute('href')).toBe(
      'mailto:hello@namaa.ai',
    );
    expect(await page.getByRole('link', { name: 'Explore Our Products' }).getAttribute('href')).toBe(
      '/#products',
    );
    expect(await page.getByRole('link', { name: 'Contact Us' }).getAttribute('href')).toBe('/#contact');
    await context.close();
  });

  it('carries title, description, canonical, Open Graph, Twitter and Organization JSON-LD', async () => {
    const response = await fetch(`${product.origin}/`, { headers: { 'Accept-Encoding': 'br' } });
    expect(response.headers.get('content-encoding')).toBe('br');
    const html = await response.text();
    expect(html).toMatch(/<html lang="en" dir="ltr"/);
    expect(html).toContain('<title>Namaa | AI social media growth suite, built in Riyadh</title>');
    expect(html).toMatch(/<meta name="description" content="[^"]{50,}"/);
    expect(html).toContain('<link rel="canonical" href="https://namaa.ai/"/>');
    expect(html).toContain('<meta property="og:title"');
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image"/>');
    const ld = html.match(/<script type="application\/ld\+json">(.*?)<\/script>/)?.[1];
    expect(JSON.parse(ld ?? '{}')).toMatchObject({ '@type': 'Organization', name: 'Namaa' });
    // No framework script in <head> that could delay the first paint.
    expect(html.slice(0, html.indexOf('</head>'))).not.toMatch(/modulepreload|<script src/);
    for (const path of ['/robots.txt', '/sitemap.xml', '/favicon.svg', '/favicon.ico', '/site.webmanifest']) {
      expect((await fetch(`${product.origin}${path}`)).status, path).toBe(200);
    }
    expect(await (await fetch(`${product.origin}/sitemap.xml`)).text()).toContain(
      '<loc>https://namaa.ai/auth</loc>',
    );
  });

  it('opens and closes the mobile menu by toggle, Escape and choosing an item', async () => {
    const context = await browser.newContext(mobile);
    const page = await context.newPage();
    const log = recordConsole(page);
    await page.goto(`${product.origin}/`);
    // No framework before the first interaction on the home page.
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.documentElement.dataset.hydrated)).toBeUndefined();
    await interactAndHydrate(page);
    const toggle = page.getByRole('button', { name: 'Open menu' });
    const menuId = await toggle.getAttribute('aria-controls');
    const menu = page.locator(`[id="${menuId}"]`);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.isVisible()).toBe(false);

    await toggle.click();
    expect(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded')).toBe('true');
    expect(await menu.isVisible()).toBe(true);
    for (const item of ['Products', 'Solutions', 'Team', 'Contact', 'Sign In', 'Sign Up']) {
      expect(await menu.getByRole('link', { name: item }).isVisible(), item).toBe(true);
    }

    await page.keyboard.press('Escape');
    expect(await menu.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls'))).toBe(menuId);

    await page.getByRole('button', { name: 'Open menu' }).click();
    await menu.getByRole('link', { name: 'Team' }).click();
    expect(await menu.isVisible()).toBe(false);
    await expect.poll(() => new URL(page.url()).hash).toBe('#team');
    expect(log.errors).toEqual([]);
    await context.close();
  });

  it('lands anchored sections right under the navigation bar, on load and from in-page links', async () => {
    // Below-the-fold sections skip layout until needed (content-visibility); fragment targets must
    // still get their real offsets. scroll-padding-top is 5rem (80 px) under the 4rem bar.
    const context = await browser.newContext({ ...desktop, reducedMotion: 'reduce' });
    const page = await context.newPage();
    const topOf = (id: string) =>
      page.evaluate((target) => document.getElementById(target)?.getBoundingClientRect().top ?? NaN, id);
    for (const id of ['team', 'products', 'solutions']) {
      await page.goto(`${product.origin}/#${id}`);
      await expect.poll(() => topOf(id)).toBeCloseTo(80, -1);
    }
    await page.goto(`${product.origin}/`);
    for (const id of ['team', 'solutions', 'products']) {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: id[0]?.toUpperCase() + id.slice(1) })
        .click();
      await expect.poll(() => topOf(id)).toBeCloseTo(80, -1);
    }
    await context.close();
  });

  it('opens the mobile menu on the FIRST tap of a fresh page, before the framework, and closes it on an item', async () => {
    const context = await browser.newContext(mobile);
    const page = await context.newPage();
    const log = recordConsole(page);
    // Hold every framework chunk until the end: whatever happens before, happens without React.
    const held: Array<() => void> = [];
    let release = false;
    await page.route('**/assets/*.js', (route) =>
      release ? route.continue() : held.push(() => void route.continue()),
    );
    await page.goto(`${product.origin}/`);
    const toggle = page.getByRole('button', { name: 'Open menu' });
    const menuId = await toggle.getAttribute('aria-controls');
    const menu = page.locator(`[id="${menuId}"]`);
    expect(await menu.isVisible()).toBe(false);

    await toggle.tap();
    expect(await menu.isVisible()).toBe(true);
    const expanded = page.getByRole('button', { name: 'Close menu' });
    expect(await expanded.getAttribute('aria-expanded')).toBe('true');
    for (const item of ['Products', 'Solutions', 'Team', 'Contact', 'Sign In', 'Sign Up']) {
      expect(await menu.getByRole('link', { name: item }).isVisible(), item).toBe(true);
    }
    // The tap did start the framework download, but none of it has run.
    await expect.poll(() => held.length).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.documentElement.dataset.hydrated)).toBeUndefined();

    await menu.getByRole('link', { name: 'Team' }).tap();
    expect(await menu.isVisible()).toBe(false);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => new URL(page.url()).hash).toBe('#team');

    // Escape closes it natively and keeps focus on the toggle, still before hydration.
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await menu.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await menu.isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls'))).toBe(menuId);

    // Open it again, then let React hydrate: it must take over the open menu's state.
    await toggle.tap();
    release = true;
    for (const continueRoute of held.splice(0)) continueRoute();
    await waitForHydration(page);
    expect(await expanded.getAttribute('aria-expanded')).toBe('true');
    await expanded.tap();
    expect(await menu.isVisible()).toBe(false);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(log.errors).toEqual([]);
    expect(log.messages.filter((m) => m.type === 'error')).toEqual([]);
    await context.close();
  });
});

describe('404 page', () => {
  it('answers unknown paths with status 404, the spec texts and a console log of the path', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    const log = recordConsole(page);
    const response = await page.goto(`${product.origin}/no/such/page`);
    expect(response?.status()).toBe(404);
    await waitForHydration(page);
    expect(await page.locator('h1').textContent()).toBe('Oops! Page not found');
    await expect
      .poll(() => log.messages.some((m) => m.type === 'error' && m.text.includes('/no/such/page')))
      .toBe(true);
    expect(log.errors).toEqual([]);
    await page.getByRole('link', { name: 'Return to Home' }).click();
    await page.waitForURL(`${product.origin}/`);
    await context.close();
  });
});

describe('privacy notice and sign-up consent (PDPL, issue #26)', () => {
  for (const [locale, prefix, heading, link] of [
    ['en', '', 'Privacy notice', 'privacy notice'],
    ['ar', '/ar', 'إشعار الخصوصية', 'إشعار الخصوصية'],
  ] as const) {
    it(`${locale}: the sign-up form says what is kept and links the notice, which is prerendered`, async () => {
      const live = await browser.newContext(desktop);
      const form = await live.newPage();
      await form.goto(`${product.origin}${prefix}/auth?mode=signup`);
      await interactAndHydrate(form);
      const consent = form.getByTestId('signup-consent');
      expect(await consent.isVisible()).toBe(true);
      expect(await consent.getByRole('link', { name: link }).getAttribute('href')).toBe(`${prefix}/privacy`);
      await live.close();
      // The notice is readable without any script, in the page's language and direction.
      const context = await browser.newContext({ ...desktop, javaScriptEnabled: false });
      const page = await context.newPage();
      const response = await page.goto(`${product.origin}${prefix}/privacy`);
      expect(response?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe(heading);
      expect(await page.locator('html').getAttribute('lang')).toBe(locale);
      expect(await page.locator('html').getAttribute('dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
      // Every footer links it.
      await page.goto(`${product.origin}${prefix}/`);
      expect(await page.getByTestId('footer-privacy').getAttribute('href')).toBe(`${prefix}/privacy`);
      await context.close();
    });
  }

  it('signing up states the acceptance, and the service keeps it out of the editable metadata', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    await page.goto(`${product.origin}/auth?mode=signup`);
    await interactAndHydrate(page);
    await page.getByLabel('Email').fill(`consent-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct-horse-7');
    const signup = page.waitForResponse((r) => r.url().includes('/auth/v1/signup'));
    await page.getByRole('button', { name: 'Sign Up' }).click();
    const response = await signup;
    expect(response.request().postDataJSON()).toMatchObject({ data: { privacy_notice_accepted: true } });
    expect(response.status()).toBe(200);
    // GoTrue answers the user itself while the address awaits confirmation ({ user, session } once signed in).
    const body = (await response.json()) as { id?: string; user?: { id?: string } };
    const user = (body.user ?? body) as { id?: string; user_metadata?: Record<string, unknown> };
    expect(user.id).toBeTruthy();
    expect(user.user_metadata).toBeDefined();
    expect(user.user_metadata?.privacy_notice_accepted).toBeUndefined();
    await context.close();
  });
});

describe('accessibility (axe, WCAG 2.2 AA)', () => {
  const pages = ['/', '/auth', '/auth?mode=signup', '/auth/forgot', '/auth/reset', '/privacy', '/missing'];
  for (const [label, options] of [
    ['desktop', desktop],
    ['375px', mobile],
  ] as const) {
    it(`has no violations on every page at ${label}`, async () => {
      const context = await browser.newContext({ ...options, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const failures: string[] = [];
      for (const path of pages) {
        await page.goto(`${product.origin}${path}`);
        await interactAndHydrate(page);
        for (const v of await axeViolations(page)) failures.push(`${path}: ${v}`);
      }
      expect(failures).toEqual([]);
      await context.close();
    });
  }

  it('keeps a visible focus indicator on keyboard focus', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    await page.goto(`${product.origin}/`);
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    );
    expect(outline).toBe('solid');
    await context.close();
  });
});
