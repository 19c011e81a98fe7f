// Vite plugin: the self-hosted Arabic typeface (Readex Pro variable, OFL-1.1, from
// @fontsource-variable/readex-pro), cut at build time to the characters the Arabic pages use.
//
// `import { arabicFontCss, arabicFontScript } from 'virtual:arabic-font'` gives
//  - two woff2 files, emitted as content-hashed /assets/ files (immutable caching): the Arabic
//    letters + harakat, and the Western digits/Latin the Arabic pages show (the upstream Arabic file
//    has no digits); the Arabic face also carries the space, so Arabic text never waits for the
//    Latin file (the faces overlap on U+20 and the later-declared Arabic face wins);
//  - a metric-matched fallback family ("ReadexFallback": local Noto Sans Arabic / Arial, one face per
//    weight the design uses, with size-adjust and ascent/descent overrides measured by
//    measure-fallback.ts), so swapping to Readex neither rewraps lines nor moves them;
//  - the font-family rules scoped to `html[lang="ar"]`: root.tsx injects this CSS and the script only
//    into Arabic pages, so English pages never reference (let alone download) the font.
//
// Why the web font comes after the first paint (issue #18): the Arabic pages first paint in
// ReadexFallback and `arabicFontScript` switches them to Readex (html[data-web-font]) once the
// largest paint is on screen and the files have loaded. A font that is requested during the first
// render (preloaded, or referenced by the first layout) shares the slow connection with the HTML and,
// in Lighthouse's simulation, sits on the critical path of FCP and LCP (+~450 ms on /ar/); requested
// after the LCP it costs neither. The swap is one re-render with already-loaded files (no invisible
// text) and, with the matched fallback, no layout shift. Without script the pages keep the fallback.
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

/**
 * Measured by scripts/font/measure-fallback.ts against the real Arabic page text, per weight: Readex
 * is variable (wider as it gets bolder) and the fallbacks have a regular and a bold file, so each
 * design weight (400, 500, 600 and 700/800) gets its own face.
 */
const fallbackMetrics = {
  arabic: {
    400: { sizeAdjust: '111.57%', ascent: '89.63%', descent: '22.41%' },
    500: { sizeAdjust: '113.40%', ascent: '88.18%', descent: '22.05%' },
    600: { sizeAdjust: '104.31%', ascent: '95.87%', descent: '23.97%' },
    700: { sizeAdjust: '105.97%', ascent: '94.37%', descent: '23.59%' },
  },
  latin: {
    400: { sizeAdjust: '104.27%', ascent: '95.91%', descent: '23.98%' },
    500: { sizeAdjust: '106.49%', ascent: '93.91%', descent: '23.48%' },
    600: { sizeAdjust: '104.26%', ascent: '95.91%', descent: '23.98%' },
    700: { sizeAdjust: '106.39%', ascent: '93.99%', descent: '23.50%' },
  },
} as const;

/** The local faces the metrics were measured on: the regular file below 600, the bold one from 600. */
const fallbackSources = {
  arabic: {
    regular: 'local("Noto Sans Arabic"),local(NotoSansArabic-Regular)',
    bold: 'local("Noto Sans Arabic Bold"),local(NotoSansArabic-Bold)',
  },
  latin: {
    regular: 'local(Arial),local(ArialMT),local("Liberation Sans"),local(LiberationSans)',
    bold: 'local("Arial Bold"),local(Arial-BoldMT),local("Liberation Sans Bold"),local(LiberationSans-Bold)',
  },
} as const;

/** The weights the design uses, each with its fallback face. */
const designWeights = [400, 500, 600, 700] as const;
/** 800 (font-extrabold) is drawn at Readex's heaviest, 700, so the 700 face covers up to 900. */
const fallbackWeightRange = { 400: '400', 500: '500', 600: '600', 700: '700 900' } as const;

/** Set on <html> by arabicFontScript once Readex has loaded; the family rule below switches on it. */
export const webFontAttribute = 'data-web-font';

const fallbackStack = 'ReadexFallback,system-ui,Tahoma,sans-serif';

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
  const faces = subsets.flatMap(({ part, range, url }) => [
    `@font-face{font-family:Readex;font-weight:400 700;font-display:swap;src:url(${url})format("woff2");unicode-range:${range}}`,
    ...designWeights.map((weight) => {
      const m = fallbackMetrics[part][weight];
      const source = fallbackSources[part][weight >= 600 ? 'bold' : 'regular'];
      return `@font-face{font-family:ReadexFallback;font-weight:${fallbackWeightRange[weight]};src:${source};size-adjust:${m.sizeAdjust};ascent-override:${m.ascent};descent-override:${m.descent};line-gap-override:0%;unicode-range:${range}}`;
    }),
  ]);
  return [
    ...faces,
    // The first paint uses the fallback only: nothing on the page needs Readex before the script
    // switches to it, so no font request competes with the HTML or delays the largest paint.
    `html[lang="ar"] body{font-family:${fallbackStack}}`,
    `html[lang="ar"][${webFontAttribute}] body{font-family:Readex,${fallbackStack}}`,
    // Letter-spacing pulls joined Arabic letters apart; the Latin design's tracking is dropped here.
    'html[lang="ar"] body *{letter-spacing:normal!important}',
  ].join('');
}

/**
 * The inline script (Arabic pages, in <head>) that switches to Readex after the largest paint. It
 * waits for both
 *  - `load`: the whole document is parsed, so no later frame adds text (on a loaded phone the hero
 *    heading can be painted a frame after the navigation), and
 *  - the first largest-contentful-paint entry: a frame has really been presented (animation frames
 *    also run before the first paint, while the browser still holds it back), or, where that entry
 *    type is unknown or never comes (a page opened in a background tab), 3 s, and
 *  - `document.fonts.ready`: the metric-matched fallback faces are `local()` fonts, loaded
 *    asynchronously like any face. Once in CI, on a starved CPU, /ar/ at 1280 px reported a later LCP
 *    entry 63 ms after the Readex request; the fallback's arrival repainting the heading is the
 *    likely cause, and waiting for the pending faces removes it whatever the cause's timing;
 * then lets two more frames go by, so the frame painting what `load` completed is on screen too.
 * Only then are both Readex files loaded (an Arabic letter and a digit select both faces by
 * unicode-range), and only once they are in is the attribute set: text is never invisible and the
 * swap is one re-render. If the files fail to load, the page keeps the matched fallback.
 */
// `document.fonts.ready` is read after the load event, not when this inline script runs: read in the
// head, before any face has started loading, it is an already-settled promise, so the local fallback
// faces (loaded asynchronously, the bold one after the regular) could still be loading, and the
// heading they draw could paint, as a later largest paint, after Readex was asked for. And the
// observer stays on: Readex is asked for only once 150 ms have passed without a new largest-paint
// entry (on a starved CPU the heading was presented 7–48 ms after the two frames had run).
export const arabicFontScript =
  `(()=>{const d=document,r=requestAnimationFrame,l="largest-contentful-paint",p=performance;let t=0;Promise.all([` +
  `new Promise(s=>{setTimeout(s,3e3);PerformanceObserver.supportedEntryTypes?.includes(l)&&new PerformanceObserver(()=>{t=p.now();s()}).observe({type:l,buffered:!0})}),` +
  `new Promise(s=>d.readyState==="complete"?s():addEventListener("load",s,{once:!0})).then(()=>d.fonts.ready)` +
  `]).then(function w(){p.now()-t<150?setTimeout(w,50):r(()=>r(()=>setTimeout(()=>d.fonts.load("1em Readex","\u0627 0").then(()=>d.documentElement.setAttribute("${webFontAttribute}",""),()=>{}))))})})()`;

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
      return [
        `export const arabicFontCss = ${JSON.stringify(fontFaceCss(withUrls))};`,
        `export const arabicFontScript = ${JSON.stringify(arabicFontScript)};`,
      ].join('\n');
    },
  };
}
