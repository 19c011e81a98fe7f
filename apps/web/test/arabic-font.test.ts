import { createRequire } from 'node:module';
import * as hb from 'harfbuzzjs';
import { describe, expect, it } from 'vitest';
import { buildSubsets, fontFaceCss } from '../scripts/font/arabic-font-plugin.ts';
import { arabicPageCharacters, arabicPageText } from '../scripts/font/arabic-page-text.ts';

const require = createRequire(import.meta.url);
const fontverter = require('fontverter') as { convert: (b: Buffer, f: string) => Promise<Buffer> };

async function codePoints(woff2: Buffer): Promise<Set<number>> {
  const face = new hb.Face(new hb.Blob(await fontverter.convert(woff2, 'truetype')));
  return new Set(face.collectUnicodes());
}

describe('Arabic font subset (build time)', () => {
  it('covers every character of the Arabic pages, the harakat and the Western digits, in small woff2 files', async () => {
    const subsets = await buildSubsets();
    const arabic = subsets.find((s) => s.part === 'arabic');
    const latin = subsets.find((s) => s.part === 'latin');
    if (!arabic || !latin) throw new Error('both subsets must be built');
    expect(arabic.bytes.subarray(0, 4).toString('latin1')).toBe('wOF2');
    expect(arabic.bytes.length).toBeLessThan(20_000);
    expect(latin.bytes.length).toBeLessThan(12_000);

    const arabicCps = await codePoints(arabic.bytes);
    const latinCps = await codePoints(latin.bytes);
    const used = [...new Set(arabicPageText())].filter((c) => c.trim() !== '' && c !== '\u200c');
    const missing = used.filter((c) => {
      const cp = c.codePointAt(0) as number;
      return !arabicCps.has(cp) && !latinCps.has(cp);
    });
    expect(missing).toEqual([]);
    // Harakat: fatha, damma, kasra, shadda, sukun, tanween fath, superscript alef.
    for (const cp of [0x064e, 0x064f, 0x0650, 0x0651, 0x0652, 0x064b, 0x0670]) {
      expect(arabicCps.has(cp), cp.toString(16)).toBe(true);
    }
    for (const digit of '0123456789%+') expect(latinCps.has(digit.codePointAt(0) as number)).toBe(true);
    expect(arabicPageCharacters().arabic).toContain('\u0651');
  });

  it('declares swap, unicode-range, metric-matched fallbacks and applies the family to Arabic pages only', async () => {
    const subsets = await buildSubsets();
    const css = fontFaceCss(subsets.map((s) => ({ ...s, url: `/${s.fileName}` })));
    expect(css.match(/font-display:swap/g)).toHaveLength(2);
    expect(css).toMatch(/unicode-range:U\+20,U\+A0,U\+6\?\?/);
    expect(css).toMatch(/size-adjust:\d+\.\d+%;ascent-override:\d+\.\d+%;descent-override/);
    // Every font-family use is scoped to html[lang="ar"]: English pages never match it.
    const uses = css.replace(/@font-face\{[^}]*\}/g, '');
    expect(uses).toMatch(/^html\[lang="ar"\] body\{font-family:Readex,/);
    expect(uses.match(/font-family/g)).toHaveLength(1);
  });
});
