// Vite plugin: the self-hosted Arabic typeface (Readex Pro variable, OFL-1.1, from
// @fontsource-variable/readex-pro), cut at build time to the characters the Arabic pages use.
//
// `import { arabicFontCss, arabicFontPreloads } from 'virtual:arabic-font'` gives
//  - two woff2 files, emitted as content-hashed /assets/ files (immutable caching): the Arabic
//    letters + harakat, and the Western digits/Latin the Arabic pages show (the upstream Arabic file
//    has no digits); the Arabic face also carries the space, so Arabic text never waits for the
//    Latin file (the faces overlap on U+20 and the later-declared Arabic face wins);
//  - `font-display: swap` and a metric-matched fallback face ("ReadexFallback": local Noto Sans
//    Arabic / Arial with size-adjust and ascent/descent overrides measured by measure-fallback.ts),
//    so the swap neither rewraps lines nor moves them;
//  - the font-family rule scoped to `html[lang="ar"]`: root.tsx injects this CSS and the preload only
//    into Arabic pages, so English pages never reference (let alone download) the font.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { arabicPageCharacters } from './arabic-page-text.ts';

const require = createRequire(import.meta.url);
const subsetFont = require('subset-font') as (
  font: Buffer,
  text: string,
  options: { targetFormat: 'woff2'; variationAxes?: Record<string, { min: number; max: number }> },
) => Promise<Buffer>;

const virtualId = 'virtual:arabic-font';
const resolvedId = `\0${virtualId}`;
const fontsDir = join(require.resolve('@fontsource-variable/readex-pro/package.json'), '..', 'files');

/** The design uses weights 400–800; the font stops at 700, so 400–700 is all that is kept. */
const weightAxis = { wght: { min: 400, max: 700 } };

/** Measured by scripts/font/measure-fallback.ts against the real Arabic page text. */
const fallbackMetrics = {
  arabic: { sizeAdjust: '111.59%', ascent: '89.62%', descent: '22.40%' },
  latin: { sizeAdjust: '104.27%', ascent: '95.91%', descent: '23.98%' },
} as const;

const fallbackSources = {
  arabic: 'local("Noto Sans Arabic"),local(NotoSansArabic-Regular)',
  latin: 'local(Arial),local("Liberation Sans")',
} as const;

const fontStack = 'Readex,ReadexFallback,system-ui,Tahoma,sans-serif';

const blockRanges = {
  arabic: 'U+20,U+A0,U+6??,U+200C-200D,U+FB50-FDFF,U+FE70-FEFF',
  latin: 'U+20-7E,U+A0-FF,U+2013-2026',
} as const;

type Subset = { part: 'arabic' | 'latin'; bytes: Buffer; range: string; fileName: string };

let subsetsPromise: Promise<Subset[]> | undefined;

/** Cuts both subsets once per process (React Router runs a client and a server build). */
export function buildSubsets(): Promise<Subset[]> {
  subsetsPromise ??= (async () => {
    const chars = arabicPageCharacters();
    return Promise.all(
      (['latin', 'arabic'] as const).map(async (part) => {
        const source = readFileSync(join(fontsDir, `readex-pro-${part}-wght-normal.woff2`));
        const bytes = await subsetFont(source, chars[part], {
          targetFormat: 'woff2',
          variationAxes: weightAxis,
        });
        const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
        // unicode-range only decides when the file is fetched (a character missing from the subset
        // still falls back per character), so the short block ranges do and keep the page smaller.
        const range = blockRanges[part];
        return { part, bytes, range, fileName: `assets/readex-pro-${part}-${hash}.woff2` };
      }),
    );
  })();
  return subsetsPromise;
}

export function fontFaceCss(subsets: Array<Subset & { url: string }>): string {
  const faces = subsets.flatMap(({ part, range, url }) => {
    const m = fallbackMetrics[part];
    return [
      `@font-face{font-family:Readex;font-weight:400 700;font-display:swap;src:url(${url})format("woff2");unicode-range:${range}}`,
      `@font-face{font-family:ReadexFallback;src:${fallbackSources[part]};size-adjust:${m.sizeAdjust};ascent-override:${m.ascent};descent-override:${m.descent};line-gap-override:0%;unicode-range:${range}}`,
    ];
  });
  return [
    ...faces,
    `html[lang="ar"] body{font-family:${fontStack}}`,
    // Letter-spacing pulls joined Arabic letters apart; the Latin design's tracking is dropped here.
    'html[lang="ar"] body *{letter-spacing:normal!important}',
  ].join('');
}

export function arabicFontPlugin(): Plugin {
  let serve = false;
  return {
    name: 'namaa:arabic-font',
    configResolved(config) {
      serve = config.command === 'serve';
    },
    resolveId(id) {
      return id === virtualId ? resolvedId : undefined;
    },
    async load(id) {
      if (id !== resolvedId) return undefined;
      const subsets = await buildSubsets();
      const withUrls = subsets.map((subset) => {
        if (serve) {
          return { ...subset, url: `data:font/woff2;base64,${subset.bytes.toString('base64')}` };
        }
        // A fixed, content-hashed name: the client and the prerendering server build emit the same
        // file and write the same URL into the HTML.
        this.emitFile({ type: 'asset', fileName: subset.fileName, source: subset.bytes });
        return { ...subset, url: `/${subset.fileName}` };
      });
      // Only the Arabic file is critical (the LCP heading is Arabic); the Latin file loads on use.
      const preloads = withUrls.filter((s) => s.part === 'arabic').map((s) => s.url);
      return [
        `export const arabicFontCss = ${JSON.stringify(fontFaceCss(withUrls))};`,
        `export const arabicFontPreloads = ${JSON.stringify(serve ? [] : preloads)};`,
      ].join('\n');
    },
  };
}
