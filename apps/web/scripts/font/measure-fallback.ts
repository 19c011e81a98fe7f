// Developer tool: measures the fallback-font metric overrides written in arabic-font-plugin.ts.
//   node scripts/font/measure-fallback.ts
// Shapes the real Arabic page text with HarfBuzz in Readex Pro (the web font, at each design weight)
// and in the local fallbacks (Noto Sans Arabic Regular/Bold for Arabic, Liberation Sans = Arial
// metrics for Latin) and prints, per weight, size-adjust (ratio of advance widths, so lines wrap at
// the same place before and after the swap) and the ascent/descent overrides (Readex Pro's vertical
// metrics divided by size-adjust), in the shape of `fallbackMetrics`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as hb from 'harfbuzzjs';
import { arabicPageText } from './arabic-page-text.ts';

const require = createRequire(import.meta.url);
const fontverter = require('fontverter') as { convert: (b: Buffer, f: string) => Promise<Buffer> };
const fontsDir = `${import.meta.dirname}/../../../../node_modules/@fontsource-variable/readex-pro/files`;

async function load(path: string, weight?: number) {
  const raw = readFileSync(path);
  const ttf = path.endsWith('.woff2') ? await fontverter.convert(raw, 'truetype') : raw;
  const face = new hb.Face(new hb.Blob(ttf));
  const font = new hb.Font(face);
  if (weight) font.setVariations([new hb.Variation('wght', weight)]);
  return { face, font };
}

function width(font: hb.Font, text: string): number {
  let total = 0;
  for (const run of text.split(/\s+/).filter(Boolean)) {
    const buffer = new hb.Buffer();
    buffer.addText(run);
    buffer.guessSegmentProperties();
    hb.shape(font, buffer);
    for (const p of buffer.getGlyphPositions()) total += p.xAdvance;
  }
  return total / font.face.upem;
}

const text = arabicPageText();
const arabicWords = text.split(/\s+/).filter((w) => /[\u0600-\u06ff]/.test(w) && !/[A-Za-z0-9]/.test(w));
const latinWords = text.split(/\s+/).filter((w) => /^[\x21-\x7e]+$/.test(w));

const noto = '/usr/share/fonts/truetype/noto';
const liberation = '/usr/share/fonts/truetype/liberation';
const parts = {
  arabic: {
    regular: `${noto}/NotoSansArabic-Regular.ttf`,
    bold: `${noto}/NotoSansArabic-Bold.ttf`,
    words: arabicWords,
  },
  latin: {
    regular: `${liberation}/LiberationSans-Regular.ttf`,
    bold: `${liberation}/LiberationSans-Bold.ttf`,
    words: latinWords,
  },
} as const;

// One fallback face per weight the design uses (800 is drawn at Readex's 700): the variable web font
// gets wider with weight while the fallback has only a regular and a bold file, so each weight needs
// its own size-adjust for lines to break at the same places before and after the swap.
const pct = (n: number) => `${(n * 100).toFixed(2)}%`;
for (const [part, { regular, bold, words }] of Object.entries(parts)) {
  const sample = words.join(' ');
  for (const weight of [400, 500, 600, 700]) {
    const web = await load(`${fontsDir}/readex-pro-${part}-wght-normal.woff2`, weight);
    const fallback = await load(weight >= 600 ? bold : regular);
    const sizeAdjust = width(web.font, sample) / width(fallback.font, sample);
    const { ascender, descender } = web.font.hExtents();
    const upem = web.face.upem;
    console.log(
      `${part} ${weight}: { sizeAdjust: '${pct(sizeAdjust)}', ascent: '${pct(ascender / upem / sizeAdjust)}', descent: '${pct(-descender / upem / sizeAdjust)}' },`,
    );
  }
}
