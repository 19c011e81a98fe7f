// Issue 24: every email's design in Chromium, in both languages, light and dark, at a desktop mail
// pane's width and a phone's; and the development mailbox showing a message as its recipient sees
// it. Screenshots are kept in .cache/mail-screenshots/ (git-ignored) to be looked at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../apps/auth/src/config.ts';
import { mailCopy } from '../apps/auth/src/core/mail/copy.ts';
import { brandColors } from '../apps/auth/src/core/mail/email-layout.ts';
import { createMailTemplates, MAIL_KINDS, type MailTemplates } from '../apps/auth/src/core/mail/templates.ts';
import { startTestServer, uniqueEmail } from '../apps/auth/test/support/test-server.ts';
import { launchBrowser, recordConsole } from './support/browser.ts';

const outDir = join(repoRoot, '.cache/mail-screenshots');
let browser: Browser;
let templates: MailTemplates;

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  [browser, templates] = await Promise.all([
    launchBrowser(),
    createMailTemplates(loadConfig({ NODE_ENV: 'test' })),
  ]);
});
afterAll(async () => {
  await browser?.close();
});

/** #rrggbb → the rgb() string getComputedStyle reports. */
const rgb = (hex: string) =>
  `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

// A long link, as a real one is (token + redirect_to): it must wrap, never widen the message.
const link =
  'https://namaa.example/auth/v1/verify?token=9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928&type=signup&redirect_to=https%3A%2F%2Fnamaa.example%2Far%2F';

describe('each email in Chromium', () => {
  for (const kind of MAIL_KINDS) {
    for (const locale of ['en', 'ar'] as const) {
      it(`${kind} (${locale}): direction, brand colours, light and dark, phone width`, async () => {
        const copy = mailCopy[locale].kinds[kind];
        const mail = templates.render(kind, locale, {
          ConfirmationURL: copy.action ? link : '',
          Token: '482913',
          TokenHash: '9f8e7d6c',
          SiteURL: 'https://namaa.example',
          RedirectTo: 'https://namaa.example/ar/',
          Email: 'sara@example.com',
          NewEmail: 'sara.new@example.com',
          Data: { locale },
          Failures: 3,
        });
        for (const scheme of ['light', 'dark'] as const) {
          const context = await browser.newContext({
            viewport: { width: 640, height: 900 },
            colorScheme: scheme,
            javaScriptEnabled: false, // as in a mail client
          });
          const page = await context.newPage();
          await page.setContent(mail.html, { waitUntil: 'load' });
          const h1 = page.locator('h1');
          expect(await h1.textContent()).toBe(copy.heading);
          expect(await h1.evaluate((e) => getComputedStyle(e).direction)).toBe(
            locale === 'ar' ? 'rtl' : 'ltr',
          );
          // Arabic text starts at the right edge of its line, English at the left.
          const gap = await h1.evaluate((e) => {
            const range = document.createRange();
            range.selectNodeContents(e);
            const text = range.getBoundingClientRect();
            const box = e.getBoundingClientRect();
            return { left: text.left - box.left, right: box.right - text.right };
          });
          if (locale === 'ar') expect(gap.right).toBeLessThan(gap.left);
          else expect(gap.left).toBeLessThan(gap.right);
          const bodyCell = page.locator('body > table td').first();
          expect(await page.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(
            rgb(scheme === 'dark' ? brandColors.oasis950 : brandColors.sand50),
          );
          // …and so is the cell react-email's Body paints (no light band around the card in dark mode).
          expect(await bodyCell.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(
            rgb(scheme === 'dark' ? brandColors.oasis950 : brandColors.sand50),
          );
          if (copy.action) {
            const button = page.locator('a.nm-button');
            expect(await button.textContent()).toContain(copy.action);
            expect(await button.getAttribute('href')).toBe(link);
            expect(await button.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(
              rgb(scheme === 'dark' ? brandColors.oasis300 : brandColors.oasis700),
            );
          } else expect(await page.locator('a').count()).toBe(0);
          if (copy.code) expect(await page.locator('.nm-code').textContent()).toBe('482913');
          await page.screenshot({ path: join(outDir, `${kind}-${locale}-${scheme}.png`), fullPage: true });
          // The card alone (README's pictures are docs/mail-confirmation-en.png and -ar.png, copied from these).
          if (scheme === 'light')
            await page.locator('.nm-card').screenshot({ path: join(outDir, `${kind}-${locale}-card.png`) });

          // A phone: nothing wider than the screen (the long link wraps).
          await page.setViewportSize({ width: 360, height: 800 });
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
          if (scheme === 'light')
            await page.screenshot({ path: join(outDir, `${kind}-${locale}-phone.png`), fullPage: true });
          await context.close();
        }
      });
    }
  }
});

describe('the development mailbox', () => {
  it('shows the HTML in a sandboxed frame, as the recipient sees it, and the text part', async () => {
    const dev = await startTestServer({ SMTP_URL: '' });
    try {
      const email = uniqueEmail('mailbox');
      await dev.client().auth.signUp({
        email,
        password: 'correct horse',
        options: { emailRedirectTo: `${dev.url}/ar/` },
      });
      const list = (await (await dev.api(`/_dev/mailbox.json?to=${encodeURIComponent(email)}`)).json()) as {
        id: string;
        text: string;
      }[];
      const [row] = list;
      expect(row).toBeTruthy();
      const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
      const page = await context.newPage();
      const log = recordConsole(page);
      await page.goto(`${dev.url}/auth/v1/_dev/mailbox`);
      await page.getByRole('link', { name: mailCopy.ar.kinds.confirmation.subject }).click();
      await page.waitForURL(`${dev.url}/auth/v1/_dev/mailbox/${row?.id}`);
      const frame = page.locator('iframe');
      expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
      // Rendered inside the frame: the Arabic heading, right to left, with the design's styles
      // (inline styles pass the page's CSP; nothing else is allowed to load or run).
      const heading = page.frameLocator('iframe').locator('h1');
      expect(await heading.textContent()).toBe(mailCopy.ar.kinds.confirmation.heading);
      expect(await heading.evaluate((e) => getComputedStyle(e).direction)).toBe('rtl');
      expect(
        await page
          .frameLocator('iframe')
          .locator('a.nm-button')
          .evaluate((e) => getComputedStyle(e).backgroundColor),
      ).toBe(rgb(brandColors.oasis700));
      expect(await page.locator('pre').textContent()).toBe(row?.text);
      expect(log.messages.filter((m) => /Content Security Policy|Refused/i.test(m.text))).toEqual([]);
      expect(log.errors).toEqual([]);
      await page.screenshot({ path: join(outDir, 'dev-mailbox-ar.png'), fullPage: true });
      await context.close();
    } finally {
      await dev.close();
    }
  });
});
