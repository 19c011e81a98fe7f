import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { chromiumFlags, chromiumPath } from './chromium.ts';

/** Debian's Chromium through playwright-core. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
}

export const desktop: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
export const mobile: BrowserContextOptions = {
  viewport: { width: 375, height: 812 },
  isMobile: true,
  hasTouch: true,
};

/** Collects console messages and page errors of a page. */
export function recordConsole(page: Page) {
  const messages: Array<{ type: string; text: string }> = [];
  const errors: string[] = [];
  page.on('console', (message) => messages.push({ type: message.type(), text: message.text() }));
  page.on('pageerror', (error) => errors.push(error.message));
  return { messages, errors };
}

/** Resolves once React has hydrated the page (the framework bootstrap is deferred until load). */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true');
}

/**
 * The home page starts its framework at the visitor's first interaction (or at once when a session
 * must be restored); press a modifier key to be that visitor, then wait for hydration.
 */
export async function interactAndHydrate(page: Page): Promise<void> {
  await page.keyboard.press('Shift');
  await waitForHydration(page);
}
