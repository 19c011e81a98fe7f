// Post-build step for the static site (runs after `react-router build`):
//  1. moves every prerendered `<prefix>/404/index.html` to `<prefix>/404.html` (what the server
//     answers, with status 404, for unknown paths) and removes the emptied /404/ directory and the
//     SPA fallback, so that only real pages exist;
//  2. inlines React Router's streamed data hand-off into one script (inline-stream-handoff.ts),
//     keeps only each page's critical CSS inline and writes the whole sheet as an asset
//     (css/critical-css.ts), and defers the React Router bootstrap (defer-bootstrap.ts), which also
//     loads that sheet: home and auth pages start it at the first interaction (or on `load` when
//     there is state to apply: a stored session, the tokens of an email link in the URL, or
//     `?mode=`), 404 pages on `load`;
//  3. writes robots.txt and sitemap.xml from the typed paths;
//  4. precompresses every text asset as .br (quality 11) and .gz (level 9).
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { localePrefix, locales } from '../app/config/locales.ts';
import { sitemapPaths } from '../app/config/paths.ts';
import { siteConfig } from '../app/config/site.ts';
import { inlineCriticalCss, inlinedStylesheet, stylesheetAssetPath } from './css/critical-css.ts';
import { deferBootstrap } from './defer-bootstrap.ts';
import { inlineStreamHandoff } from './inline-stream-handoff.ts';

// scripts/build.ts builds into a temporary folder (WEB_BUILD_DIR) and swaps it in afterwards.
const clientDir = join(process.env.WEB_BUILD_DIR ?? join(import.meta.dirname, '..', 'build'), 'client');
const compressible = /\.(html|js|mjs|css|svg|json|xml|txt|webmanifest|map)$/;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

// 1. The 404 pages.
for (const locale of locales) {
  const dir = join(clientDir, localePrefix(locale).slice(1), '404');
  const source = join(dir, 'index.html');
  if (!existsSync(source)) throw new Error(`post-build: ${relative(clientDir, source)} was not prerendered`);
  renameSync(source, join(dir, '..', '404.html'));
  rmSync(dir, { recursive: true, force: true });
}
rmSync(join(clientDir, '__spa-fallback.html'), { force: true });

// 2. Critical CSS, and the framework bootstrap deferred, on every page.
const htmlFiles = walk(clientDir).filter((file) => file.endsWith('.html'));
const sheet = inlinedStylesheet(readFileSync(join(clientDir, 'index.html'), 'utf8'));
const sheetHref = stylesheetAssetPath(sheet);
writeFileSync(join(clientDir, sheetHref), sheet);
for (const file of htmlFiles) {
  // Home, auth, the recovery pages and the privacy notice hydrate on first interaction (or on load when a stored
  // session must be restored, an email link's `?code=` or error handled, or `?mode=` applied): a
  // visitor who only reads runs no framework code, and the auth form's HTML is safe before hydration
  // (submit disabled, method="post"; a submit asked for earlier is sent once hydrated). 404 pages
  // hydrate on load (the console log of the missing path needs the framework).
  const interactive = locales.some((locale) =>
    [
      'index.html',
      join('auth', 'index.html'),
      join('auth', 'forgot', 'index.html'),
      join('auth', 'reset', 'index.html'),
      join('privacy', 'index.html'),
    ].some((page) => file === join(clientDir, localePrefix(locale).slice(1), page)),
  );
  const prerendered = inlineStreamHandoff(readFileSync(file, 'utf8'));
  if (inlinedStylesheet(prerendered) !== sheet) {
    throw new Error(`post-build: ${relative(clientDir, file)} inlines another stylesheet than index.html`);
  }
  const html = await inlineCriticalCss(prerendered, sheetHref, clientDir);
  writeFileSync(
    file,
    deferBootstrap(html, interactive ? 'interaction' : 'load', {
      stylesheet: sheetHref,
      manifest: siteConfig.manifestPath,
    }),
  );
}

// 3. robots.txt and sitemap.xml.
const origin = siteConfig.origin;
writeFileSync(join(clientDir, 'robots.txt'), `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`);
const urls = sitemapPaths
  .map(
    (path) => `  <url><loc>${new URL(path, origin).toString()}</loc><changefreq>monthly</changefreq></url>`,
  )
  .join('\n');
writeFileSync(
  join(clientDir, 'sitemap.xml'),
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`,
);

// 4. Precompressed siblings.
let count = 0;
for (const file of walk(clientDir)) {
  if (!compressible.test(file)) continue;
  const body = readFileSync(file);
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
  );
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  count++;
}
// Both editions' home pages, against the 14,336 B brotli budget (checked by e2e/arabic-font-paint.test.ts).
const homes = locales.map((locale) => {
  const home = join(clientDir, localePrefix(locale).slice(1), 'index.html');
  return `${localePrefix(locale)}/ is ${statSync(home).size} B, ${statSync(`${home}.br`).size} B brotli`;
});
console.log(`post-build: ${htmlFiles.length} pages, ${count} files precompressed; ${homes.join('; ')}`);
