import { createRequire } from 'node:module';
import * as hb from 'harfbuzzjs';
import { describe, expect, it } from 'vitest';
import {
  arabicFontScript,
  buildSubsets,
  fontFaceCss,
  webFontAttribute,
} from '../scripts/font/arabic-font-plugin.ts';
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

  it('paints Arabic pages in the matched fallback first and uses Readex only once html[data-web-font] is set', async () => {
    const subsets = await buildSubsets();
    const css = fontFaceCss(subsets.map((s) => ({ ...s, url: `/${s.fileName}` })));
    const readexFaces = css.match(/@font-face\{font-family:Readex;[^}]*\}/g) ?? [];
    expect(readexFaces).toHaveLength(2);
    for (const face of readexFaces) expect(face).toMatch(/font-display:swap;.*unicode-range:U\+/);
    // One fallback face per design weight and script, each with its own measured metrics.
    const fallbackFaces = css.match(/@font-face\{font-family:ReadexFallback;[^}]*\}/g) ?? [];
    expect(fallbackFaces.map((f) => f.match(/font-weight:([^;]+)/)?.[1])).toEqual([
      '400',
      '500',
      '600',
      '700 900',
      '400',
      '500',
      '600',
      '700 900',
    ]);
    for (const face of fallbackFaces) {
      expect(face).toMatch(
        /src:local\([^;]*;size-adjust:\d+\.\d+%;ascent-override:\d+\.\d+%;descent-override/,
      );
    }
    expect(fallbackFaces.filter((f) => f.includes('local("Noto Sans Arabic Bold")'))).toHaveLength(2);
    // Every font-family use is scoped to html[lang="ar"]; until the switch only the fallback is named,
    // so nothing in the first render makes the browser fetch Readex.
    const uses = css.replace(/@font-face\{[^}]*\}/g, '');
    expect(uses.match(/font-family:[^;}]*/g)).toEqual([
      'font-family:ReadexFallback,system-ui,Tahoma,sans-serif',
      'font-family:Readex,ReadexFallback,system-ui,Tahoma,sans-serif',
    ]);
    expect(uses).toMatch(/^html\[lang="ar"\] body\{font-family:ReadexFallback,/);
    expect(uses).toContain(`html[lang="ar"][${webFontAttribute}] body{font-family:Readex,`);
  });

  it('switches to Readex from a script that waits for load, the first LCP entry and two frames, then for both files', () => {
    expect(arabicFontScript).toContain('addEventListener("load"');
    // The fonts' readiness is read after the load event (read in the head it is already settled).
    expect(arabicFontScript).toContain('{once:!0})).then(()=>d.fonts.ready)');
    expect(arabicFontScript).toContain('l="largest-contentful-paint"');
    expect(arabicFontScript).toContain('d.fonts.load("1em Readex","\u0627 0")');
    expect(arabicFontScript).toContain(`setAttribute("${webFontAttribute}","")`);
    // Valid JavaScript that only registers work (nothing runs before load).
    expect(() => new Function(arabicFontScript)).not.toThrow();
  });
});
