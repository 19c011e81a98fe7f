import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktop, interactAndHydrate, launchBrowser, mobile } from './support/browser.ts';
import { startSiteOnly } from './support/site-only-server.ts';

// Issue #18: each prerendered page inlines only the CSS rules its own markup uses, and the whole
// stylesheet loads with the framework (apps/web/scripts/css/critical-css.ts). These tests hold that
// the inlined rules style the page exactly as the whole sheet would: every element's computed style
// (and its ::before, ::after and ::placeholder) is compared with the whole sheet switched off and on,
// as first painted, with the mobile menu open, and with each link, button and field hovered and
// focused from the keyboard. And that the whole sheet is in place before React hydrates.
const clientDir = join(import.meta.dirname, '..', 'apps/web/build/client');
let browser: Browser;
let site: { origin: string; close: () => Promise<void> };

beforeAll(async () => {
  [site, browser] = await Promise.all([startSiteOnly(clientDir), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** Every prerendered page, as the URL that serves it (404 pages through a path that does not exist). */
const pages = walk(clientDir)
  .filter((file) => file.endsWith('.html'))
  .map((file) => {
    const path = `/${relative(clientDir, file)}`;
    if (path.endsWith('404.html')) return path.replace('404.html', 'no-such-page');
    return path.replace(/index\.html$/, '');
  })
  .sort();

const sheetHref = (() => {
  const css = readdirSync(join(clientDir, 'assets')).filter((name) => /^app-.+\.css$/.test(name));
  if (css.length !== 1) throw new Error(`expected one whole stylesheet in assets/, found ${css.length}`);
  return `/assets/${css[0]}`;
})();

/**
 * Loads a page with no framework script (so nothing loads the whole sheet or re-renders) and the
 * web fonts held back (their switch would change styles between two snapshots), then adds the whole
 * sheet as a disabled <link> that `compare` switches on and off.
 */
async function openWithSwitchableSheet(options: BrowserContextOptions, path: string) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.route(/\/assets\/.+\.(js|woff2)$/, (route) => route.abort());
  // Pages that start their framework on `load` (404, account) ask for the whole sheet then: refused,
  // so the page stays on its inlined rules until the test adds the sheet itself (with a query).
  await page.route(`**${sheetHref}`, (route) => route.abort());
  await page.goto(`${site.origin}${path}`, { waitUntil: 'load' });
  await page.evaluate((href) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = `${href}?whole`;
    link.id = 'whole-sheet';
    return new Promise<void>((resolve, reject) => {
      link.onload = () => {
        link.disabled = true;
        resolve();
      };
      link.onerror = () => reject(new Error(`${href} did not load`));
      document.head.append(link);
    });
  }, sheetHref);
  return { context, page };
}

/**
 * Computed styles that differ between the inlined rules alone and the whole sheet added: of every
 * element, or with `around: 'focus' | 'hover'`, of the elements a state of the focused or hovered one
 * can restyle (itself, its ancestors for :focus-within, and its nearest `.group`'s subtree for the
 * group-* variants), which keeps the many state checks quick. Nothing focused or hovered (the body:
 * focus has left the page) is the state the whole-page comparison already covered.
 */
function differences(page: Page, around?: 'focus' | 'hover'): Promise<string[]> {
  return page.evaluate((around) => {
    const link = document.getElementById('whole-sheet') as HTMLLinkElement;
    const elements = (): Element[] => {
      if (!around) return [...document.querySelectorAll('body, body *')];
      const target =
        around === 'focus' ? document.activeElement : [...document.querySelectorAll(':hover')].pop();
      if (!target || target === document.body || target === document.documentElement) return [];
      const scope = target.closest('.group') ?? target;
      const ancestors: Element[] = [];
      for (let e = target.parentElement; e; e = e.parentElement) ancestors.push(e);
      return [
        ...new Set([
          ...ancestors,
          scope,
          ...scope.querySelectorAll('*'),
          target,
          ...target.querySelectorAll('*'),
        ]),
      ];
    };
    // Every computed value of an element, as property and value in turn. The standard properties
    // are read by name: Chromium lists them in the same order for every element, after which come
    // the custom ones, and reading the list by index is what made a whole page take 13 s (by name,
    // the custom ones alone by index: 3 s). An element whose list does not start that way is read
    // wholly by index.
    const standard = [...getComputedStyle(document.documentElement)].filter((p) => !p.startsWith('--'));
    const last = standard.length - 1;
    const read = (style: CSSStyleDeclaration): string[] => {
      const values: string[] = [];
      const byName = style.length > last && style[last] === standard[last];
      if (byName) for (const property of standard) values.push(property, style.getPropertyValue(property));
      for (let i = byName ? standard.length : 0; i < style.length; i++) {
        const property = style[i] as string;
        values.push(property, style.getPropertyValue(property));
      }
      return values;
    };
    const snapshot = (list: Element[]) => {
      const values = new Map<string, string[]>();
      for (const [index, element] of list.entries()) {
        const name = `${element.tagName.toLowerCase()}#${index}${element.id ? `(${element.id})` : ''}`;
        for (const pseudo of [null, '::before', '::after', '::placeholder']) {
          if (pseudo === '::placeholder' && !(element instanceof HTMLInputElement)) continue;
          values.set(`${name}${pseudo ?? ''}`, read(getComputedStyle(element, pseudo)));
        }
      }
      return values;
    };
    const pairs = (values: string[] = []) => {
      const map = new Map<string, string>();
      for (let i = 0; i < values.length; i += 2) map.set(values[i] as string, values[i + 1] as string);
      return map;
    };
    const list = elements();
    link.disabled = true;
    const inlinedOnly = snapshot(list);
    link.disabled = false;
    const whole = snapshot(list);
    link.disabled = true;
    const found: string[] = [];
    for (const [key, values] of whole) {
      const before = inlinedOnly.get(key);
      if (before && before.join('\n') === values.join('\n')) continue;
      const beforeByProperty = pairs(before);
      for (const [property, value] of pairs(values)) {
        if (beforeByProperty.get(property) !== value)
          found.push(`${key} ${property}: ${beforeByProperty.get(property)} → ${value}`);
      }
    }
    return found.slice(0, 20);
  }, around);
}

const widths: Array<[string, BrowserContextOptions]> = [
  ['375 px', mobile],
  ['1280 px', desktop],
];

describe('critical CSS: each page inlines the rules that style it (issue #18)', () => {
  it('covers every prerendered page, and the whole sheet is one asset', () => {
    expect(pages).toEqual(
      expect.arrayContaining(['/', '/ar/', '/auth/', '/ar/auth/', '/account/', '/ar/no-such-page']),
    );
    const home = readFileSync(join(clientDir, 'index.html'), 'utf8');
    const whole = readFileSync(join(clientDir, sheetHref), 'utf8');
    const inlined = home.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    // No page links a stylesheet: no stylesheet request holds any first paint.
    for (const file of walk(clientDir).filter((f) => f.endsWith('.html'))) {
      const html = readFileSync(file, 'utf8');
      expect(html, relative(clientDir, file)).not.toMatch(/<link[^>]+rel="?stylesheet/);
      // Nor anything the browser fetches on its own around the first paint (defer-bootstrap.ts and
      // root.tsx say why): the manifest comes with the framework, the SVG favicon is in the page.
      expect(html, relative(clientDir, file)).not.toMatch(/<link[^>]+rel="manifest"/);
      expect(html.match(/<link rel="icon" href="([^"]*)" type="image\/svg\+xml"/)?.[1]).toMatch(
        /^data:image\/svg\+xml,/,
      );
    }
    // The home page uses well under the whole sheet (the auth forms' and account page's rules are not in it).
    expect(inlined.length).toBeGreaterThan(1000);
    expect(inlined.length).toBeLessThan(whole.length * 0.8);
  });

  for (const [label, options] of widths) {
    for (const path of pages) {
      it(`${path} at ${label}: the same computed styles with the whole sheet, first paint, hover and focus`, async () => {
        const { context, page } = await openWithSwitchableSheet(options, path);
        try {
          expect(await differences(page)).toEqual([]);

          // The mobile menu opens without script (a popover): its rules must be inlined too.
          const menu = page.locator('[popovertarget]').first();
          if ((await menu.count()) > 0 && (await menu.isVisible())) {
            await menu.click();
            expect(await differences(page)).toEqual([]);
            await page.keyboard.press('Escape');
          }

          // Every focusable element, reached from the keyboard (so :focus-visible applies), and, with a
          // mouse (desktop), hovered.
          const focusable = await page.locator('a[href], button, input, select, textarea, summary').count();
          for (let i = 0; i < Math.min(focusable, 60); i++) {
            await page.keyboard.press('Tab');
            expect(await differences(page, 'focus'), `focus step ${i + 1}`).toEqual([]);
          }
          if (!options.hasTouch) {
            const targets = page.locator('a[href]:visible, button:visible, input:visible');
            const count = await targets.count();
            for (let i = 0; i < Math.min(count, 40); i++) {
              await targets
                .nth(i)
                .hover({ timeout: 2000 })
                .catch(() => undefined);
              expect(await differences(page, 'hover'), `hover ${i + 1}`).toEqual([]);
            }
          }
        } finally {
          await context.close();
        }
      }, 120_000);
    }
  }

  it('React hydrates only once the whole sheet has loaded (what hydration renders is styled); the manifest is linked then', async () => {
    const context = await browser.newContext(desktop);
    const page = await context.newPage();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`**${sheetHref}`, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${site.origin}/ar/auth`);
      expect(await page.evaluate(() => [...document.styleSheets].some((sheet) => sheet.href))).toBe(false);
      // The web app manifest is not linked before the framework starts (defer-bootstrap.ts says why).
      expect(await page.locator('link[rel="manifest"]').count()).toBe(0);
      await page.keyboard.press('Shift');
      // The framework's modules load in well under this; hydration still waits for the sheet.
      await page.waitForTimeout(1500);
      expect(await page.evaluate(() => document.documentElement.dataset.hydrated)).toBeUndefined();
      release();
      await interactAndHydrate(page);
      // The whole sheet's style rules (inside its cascade layers) are in force.
      const whole = await page.evaluate((href) => {
        const count = (rules: CSSRuleList): number =>
          [...rules].reduce(
            (n, rule) =>
              n +
              (rule instanceof CSSStyleRule ? 1 : 0) +
              ('cssRules' in rule ? count(rule.cssRules as CSSRuleList) : 0),
            0,
          );
        const sheet = [...document.styleSheets].find((s) => s.href?.endsWith(href));
        return sheet && !sheet.disabled ? count(sheet.cssRules) : 0;
      }, sheetHref);
      expect(whole).toBeGreaterThan(300);
      expect(await page.locator('link[rel="manifest"]').getAttribute('href')).toBe('/site.webmanifest');
    } finally {
      release();
      await context.close();
    }
  });
});
