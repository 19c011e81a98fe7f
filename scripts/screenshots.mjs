// Screenshots of both editions for a person to compare: starts the real product (building the site
// if needed), then writes screenshots/<page>-<width>.png for /, /auth, the recovery pages, the
// email-link notices, both 404s, the account page signed in (an account with an authenticator app
// enrolled, so two-step verification lists it), and the same in Arabic, at 375 px and 1280 px (full
// page), with Debian's Chromium. Run: node scripts/screenshots.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { generate } from 'otplib';
import { launchBrowser } from '../e2e/support/browser.ts';
import { startProduct } from '../e2e/support/product.ts';
import { storeSession } from '../e2e/support/stored-session.ts';

/** Arabic pages switch to their web font after the largest paint (issue #18): show that face. */
async function webFontShown(page) {
  await page
    .waitForFunction(
      () => document.documentElement.lang !== 'ar' || document.documentElement.hasAttribute('data-web-font'),
      null,
      { timeout: 10_000 },
    )
    .catch(() => {});
  await page.evaluate(() => document.fonts.ready);
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    'Usage: node scripts/screenshots.mjs\n\nWrites screenshots/<page>-<width>.png of both editions (375 and 1280 px) with Chromium.',
  );
  process.exit(0);
}

// An email link opened where it cannot sign in (a code without this browser's verifier), and one
// that failed: both land on the auth page with a notice.
const elsewhere = '?code=opened-in-another-browser';
const expired =
  '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired';
const pages = [
  ['home', '/'],
  ['auth', '/auth'],
  ['auth-signup', '/auth?mode=signup'],
  ['auth-forgot', '/auth/forgot'],
  ['auth-reset-no-session', '/auth/reset'],
  ['auth-link-confirmed', `/${elsewhere}`],
  ['auth-link-expired', `/${expired}`],
  ['not-found', '/missing-page'],
  ['ar-home', '/ar/'],
  ['ar-auth', '/ar/auth'],
  ['ar-auth-signup', '/ar/auth?mode=signup'],
  ['ar-auth-forgot', '/ar/auth/forgot'],
  ['ar-auth-reset-no-session', '/ar/auth/reset'],
  ['ar-auth-link-confirmed', `/ar/${elsewhere}`],
  ['ar-auth-link-expired', `/ar/${expired}`],
  ['ar-not-found', '/ar/missing-page'],
];
const widths = [375, 1280];
const outDir = join(import.meta.dirname, '..', 'screenshots');
mkdirSync(outDir, { recursive: true });

// Build only when there is no build (`npm run build` rebuilds on purpose).
if (!existsSync(join(import.meta.dirname, '..', 'apps', 'web', 'build', 'client', 'ar', 'index.html'))) {
  const build = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
// Autoconfirm: the account page's account signs up with its session at once (nothing else shown here
// depends on it).
const product = await startProduct({ LOG_LEVEL: 'error', MAILER_AUTOCONFIRM: 'true' });
const browser = await launchBrowser();

/**
 * A signed-in account with a verified authenticator app: its aal2 session. Its requests carry the
 * screenshot browser's user agent: the session is the one that browser then uses ("This device").
 */
async function accountWithTotp() {
  const { anonKey } = await (await fetch(`${product.origin}/runtime-config.json`)).json();
  const probe = await browser.newPage();
  const userAgent = await probe.evaluate(() => navigator.userAgent);
  await probe.close();
  const client = createClient(product.origin, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { 'user-agent': userAgent } },
  });
  const signUp = await client.auth.signUp({
    email: 'amal.alharbi@example.com',
    password: 'Screenshot-Account-48',
  });
  if (signUp.error) throw signUp.error;
  const enrolled = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Pixel 8' });
  if (enrolled.error) throw enrolled.error;
  const code = await generate({ secret: enrolled.data.totp.secret, epoch: Math.floor(Date.now() / 1000) });
  const verified = await client.auth.mfa.challengeAndVerify({ factorId: enrolled.data.id, code });
  if (verified.error) throw verified.error;
  const { data } = await client.auth.getSession();
  return data.session;
}

try {
  const session = await accountWithTotp();
  for (const width of widths) {
    const context = await browser.newContext({
      viewport: { width, height: width < 600 ? 812 : 900 },
      isMobile: width < 600,
      hasTouch: width < 600,
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    for (const [name, path] of pages) {
      await page.goto(`${product.origin}${path}`);
      // Pages start their framework on the first interaction: be that visitor, then wait for it.
      await page.keyboard.press('Shift');
      await page
        .waitForFunction(() => document.documentElement.dataset.hydrated === 'true', null, {
          timeout: 10_000,
        })
        .catch(() => {});
      if (name.includes('-link-')) await page.getByTestId('auth-notice').waitFor({ timeout: 10_000 });
      if (name.includes('-reset-')) await page.getByTestId('reset-no-session').waitFor({ timeout: 10_000 });
      await webFontShown(page);
      // Below-the-fold sections use content-visibility: auto, which a full-page capture does not
      // render; show them as a visitor who scrolled would see them.
      await page.addStyleTag({ content: '*{content-visibility:visible!important}' });
      const file = join(outDir, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(file);
    }
    // The account page, signed in through the stored session (the same for both editions).
    await storeSession(page, product.origin, session);
    for (const [name, path] of [
      ['account', '/account'],
      ['ar-account', '/ar/account'],
    ]) {
      await page.goto(`${product.origin}${path}`);
      await page.getByTestId('account-session').first().waitFor({ timeout: 20_000 });
      await page.getByTestId('account-factor').first().waitFor({ timeout: 20_000 });
      await webFontShown(page);
      const file = join(outDir, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(file);
    }
    await context.close();
  }
} catch (error) {
  console.error(product.logs().slice(-4000));
  throw error;
} finally {
  await browser.close();
  await product.stop();
}
