import type { Session } from '@supabase/supabase-js';
import type { Page } from 'playwright-core';

/** The key supabase-js (and the site's auth client) stores a project's session under. */
export function sessionStorageKey(projectUrl: string): string {
  return `sb-${new URL(projectUrl).hostname.split('.')[0]}-auth-token`;
}

/**
 * Signs a browser profile in without the sign-in page: the session goes into the origin's
 * localStorage as supabase-js keeps it (the session object as JSON under its key), which the page's
 * client restores on its next load. For accounts the sign-in page cannot open (phone only) and for
 * tools that measure a signed-in page from its first byte (Lighthouse).
 */
export async function storeSession(page: Page, origin: string, session: Session): Promise<void> {
  // Any same-origin document gives the page the origin's storage; this one has no script.
  await page.goto(`${origin}/runtime-config.json`);
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [
    sessionStorageKey(origin),
    JSON.stringify(session),
  ] as const);
}
