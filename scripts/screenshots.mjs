// Screenshots of both editions for a person to compare: starts the real product (building the site
// if needed), then writes screenshots/<page>-<width>.png for /, /auth, /ar/, /ar/auth and both 404s
// at 375 px and 1280 px (full page), with Debian's Chromium. Run: node scripts/screenshots.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../e2e/support/browser.ts';
import { startProduct } from '../e2e/support/product.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    'Usage: node scripts/screenshots.mjs\n\nWrites screenshots/<page>-<width>.png of both editions (375 and 1280 px) with Chromium.',
  );
  process.exit(0);
}

const pages = [
  ['home', '/'],
  ['auth', '/auth'],
  ['auth-signup', '/auth?mode=signup'],
  ['not-found', '/missing-page'],
  ['ar-home', '/ar/'],
  ['ar-auth', '/ar/auth'],
  ['ar-auth-signup', '/ar/auth?mode=signup'],
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
const product = await startProduct({ LOG_LEVEL: 'error' });
const browser = await launchBrowser();
try {
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
      // Arabic pages switch to their web font after the largest paint (issue #18): show that face.
      await page
        .waitForFunction(
          () =>
            document.documentElement.lang !== 'ar' || document.documentElement.hasAttribute('data-web-font'),
          null,
          { timeout: 10_000 },
        )
        .catch(() => {});
      await page.evaluate(() => document.fonts.ready);
      // Below-the-fold sections use content-visibility: auto, which a full-page capture does not
      // render; show them as a visitor who scrolled would see them.
      await page.addStyleTag({ content: '*{content-visibility:visible!important}' });
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
