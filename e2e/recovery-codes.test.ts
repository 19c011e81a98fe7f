// Issue 27, recovery codes, in Chromium and both languages: enrol an authenticator app on the account
// page, get the recovery codes shown once (copy, download as .txt), sign in on another browser with a
// recovery code instead of the app, see one code fewer, and have the same code refused again; the
// owner is mailed about the use.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { generate } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../apps/auth/src/config.ts';
import { createLogger } from '../apps/auth/src/logger.ts';
import { type RunningServer, startServer } from '../apps/auth/src/run-service.ts';
import { startSmtpInbox } from '../apps/auth/test/support/smtp-inbox.ts';
import { axeViolations } from './support/accessibility.ts';
import { desktop, launchBrowser } from './support/browser.ts';

const PASSWORD = 'Recovery-Codes-e2e-47';
const root = join(import.meta.dirname, '..');

let smtp: Awaited<ReturnType<typeof startSmtpInbox>>;
let server: RunningServer;
let origin: string;
let anonKey: string;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpInbox();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: 'memory://',
    SITE_DIR: join(root, 'apps/web/build/client'),
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    RATE_LIMIT_EMAIL_FLOOR: '0',
    RATE_LIMIT_EMAIL_PER_ADDRESS: '1000',
    RATE_LIMIT_EMAIL_SENT: '1000',
    LOG_LEVEL: 'silent',
  });
  [server, browser] = await Promise.all([
    startServer(config, { host: '127.0.0.1', site: true, logger: createLogger('silent') }),
    launchBrowser(),
  ]);
  origin = `http://localhost:${server.port}`;
  config.SITE_URL = origin;
  anonKey = config.ANON_KEY;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.close();
});

let counter = 0;
const newEmail = (prefix: string) => `${prefix}-${Date.now()}-${++counter}@example.com`;
const toast = (p: Page, title: string) => p.locator('[data-sonner-toast]').filter({ hasText: title });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

const editions = [
  {
    locale: 'en',
    prefix: '',
    heading: 'Your account',
    totpAdded: 'Authenticator app added',
    invalid: 'That recovery code is wrong or was already used.',
  },
  {
    locale: 'ar',
    prefix: '/ar',
    heading: 'حسابك',
    totpAdded: 'أُضيف تطبيق المصادقة',
    invalid: 'رمز الاسترداد غير صحيح أو استُخدم من قبل.',
  },
] as const;
type Edition = (typeof editions)[number];

async function account(prefix: string): Promise<string> {
  const email = newEmail(prefix);
  const sb = createClient(origin, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const { error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  const mail = await smtp.next(email, {
    predicate: (m) => m.links.some((l) => l.includes('type=signup')),
    timeoutMs: 15_000,
  });
  const link = mail.links.find((l) => l.includes('/auth/v1/verify?')) as string;
  expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  return email;
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ...desktop, acceptDownloads: true });
  return { context, page: await context.newPage() };
}

/** Opens the account page signed out and signs in with the password on the page it is sent to. */
async function passwordStep(p: Page, e: Edition, email: string): Promise<void> {
  await p.goto(`${origin}${e.prefix}/account`);
  await p.waitForURL(/\/auth\?next=/);
  await p.locator('input[name=email]').fill(email);
  await p.locator('input[name=password]').fill(PASSWORD);
  await p.locator('button[type=submit]').click();
}

describe('recovery codes', { timeout: 240_000 }, () => {
  it('shown once after enrolment (copy, download), then sign in with one; the same code is refused again (en, ar)', async () => {
    for (const e of editions) {
      const email = await account(`rc-${e.locale}`);
      const first = await newPage();
      await first.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      await passwordStep(first.page, e, email);
      await first.page.waitForURL(`${origin}${e.prefix}/account`);
      await first.page.getByRole('heading', { level: 1, name: e.heading }).waitFor();
      const section = first.page.getByTestId('account-mfa');
      await section.getByTestId('totp-add').locator('button[type=submit]').click();
      await first.page.getByTestId('totp-qr').waitFor();
      const secret = ((await first.page.getByTestId('totp-secret').textContent()) ?? '').trim();
      await section
        .locator('input[name=code]')
        .fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) }));
      await section.getByTestId('totp-enrolment').locator('button[type=submit]').click();
      await toast(first.page, e.totpAdded).waitFor();

      // The codes, shown this once right after the enrolment.
      const fresh = first.page.getByTestId('recovery-codes-fresh');
      await fresh.waitFor();
      const codes = (await fresh.getByTestId('recovery-code').allTextContents()).map((c) => c.trim());
      expect(codes).toHaveLength(10);
      for (const code of codes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
      await fresh.getByRole('button').first().click();
      await poll(() => first.page.evaluate(() => navigator.clipboard.readText())).toContain(codes[9]);
      const [download] = await Promise.all([
        first.page.waitForEvent('download'),
        first.page.getByTestId('recovery-download').click(),
      ]);
      expect(download.suggestedFilename()).toBe('namaa-recovery-codes.txt');
      const file = await readFile(await download.path(), 'utf8');
      for (const code of codes) expect(file).toContain(code);
      // The panel that shows the codes passes axe too.
      expect(await axeViolations(first.page, '[data-testid="recovery-codes"]')).toEqual([]);
      await first.page.getByTestId('recovery-saved').click();
      await poll(() => fresh.count()).toBe(0);
      expect(await first.page.content()).not.toContain(codes[0]);
      await poll(() => first.page.getByTestId('recovery-codes-left').getAttribute('data-remaining')).toBe(
        '10',
      );
      await first.context.close();

      // Another browser, without the app: a recovery code completes the second step.
      const later = await newPage();
      await passwordStep(later.page, e, email);
      const step = later.page.getByTestId('mfa-step');
      await step.waitFor();
      await later.page.getByTestId('recovery-toggle').click();
      await later.page
        .getByTestId('recovery-step')
        .locator('input[name=recovery]')
        .fill(codes[0] as string);
      await later.page.getByTestId('recovery-step').locator('button[type=submit]').click();
      await later.page.waitForURL(`${origin}${e.prefix}/account`);
      await poll(() => later.page.getByTestId('account-aal').getAttribute('data-aal')).toBe('aal2');
      await poll(() => later.page.getByTestId('recovery-codes-left').getAttribute('data-remaining')).toBe(
        '9',
      );
      await later.context.close();

      const notice = await smtp.next(email, {
        predicate: (m) => /recovery code|رمز استرداد/.test(m.subject),
      });
      expect(notice.text).toContain(email);

      // The same code again, on a third browser: refused, the visitor stays at the second step.
      const again = await newPage();
      await passwordStep(again.page, e, email);
      await again.page.getByTestId('mfa-step').waitFor();
      await again.page.getByTestId('recovery-toggle').click();
      await again.page
        .getByTestId('recovery-step')
        .locator('input[name=recovery]')
        .fill(codes[0] as string);
      await again.page.getByTestId('recovery-step').locator('button[type=submit]').click();
      await poll(() => again.page.getByTestId('mfa-error').textContent()).toContain(e.invalid);
      expect(again.page.url()).toContain('/auth');
      await again.context.close();
    }
  });
});
