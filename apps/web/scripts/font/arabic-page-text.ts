// The text the Arabic pages can show: every string of the Arabic catalog, the Arabic service-error
// texts, the switcher labels and the site facts. The font subset is cut to exactly these characters
// (plus the fixed sets below), so a new Arabic string is covered by the next build automatically.
import { localeNativeName } from '../../app/config/locales.ts';
import { siteConfig } from '../../app/config/site.ts';
import { ar } from '../../app/i18n/ar.ts';
import { serviceErrorCatalogs } from '../../app/i18n/service-errors.ts';

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** Harakat U+064B–U+065F and the superscript alef U+0670: a subset without them falls back mid-word. */
const harakat = [...Array.from({ length: 0x065f - 0x064b + 1 }, (_, i) => 0x064b + i), 0x0670];
/** Arabic punctuation, tatweel and the joiner controls used when isolating letters. */
const arabicExtras = [0xa0, 0x060c, 0x061b, 0x061f, 0x0640, 0x066a, 0x200c, 0x200d];
/** Western digits and the punctuation that figures, emails and URLs need. */
const latinExtras = '0123456789%+-–—$@.,:;!?()/&\'"•©… ';

export function arabicPageText(): string {
  return [
    ...strings(ar),
    ...strings(serviceErrorCatalogs.ar),
    ...Object.values(localeNativeName),
    siteConfig.name,
    siteConfig.contactEmail,
    siteConfig.websiteLabel,
  ].join(' ');
}

const isArabic = (cp: number) =>
  (cp >= 0x0600 && cp <= 0x06ff) || (cp >= 0x0750 && cp <= 0x077f) || (cp >= 0xfb50 && cp <= 0xfeff);

/** The characters of the Arabic pages split by the font file that carries them. */
export function arabicPageCharacters(): { arabic: string; latin: string } {
  const used = new Set([...arabicPageText()].map((c) => c.codePointAt(0) as number));
  for (const cp of [...harakat, ...arabicExtras]) used.add(cp);
  for (const c of latinExtras) used.add(c.codePointAt(0) as number);
  const all = [...used].sort((a, b) => a - b);
  const pick = (test: (cp: number) => boolean) =>
    String.fromCodePoint(...all.filter((cp) => test(cp) && cp >= 0x20));
  return {
    arabic: pick((cp) => isArabic(cp) || cp === 0x20 || cp === 0xa0 || cp === 0x200c || cp === 0x200d),
    latin: pick((cp) => cp < 0x0600 || (cp >= 0x2000 && cp < 0x2100 && cp !== 0x200c && cp !== 0x200d)),
  };
}
