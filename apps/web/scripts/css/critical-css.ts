// Critical CSS per page (issue #18). Every page used to inline the whole compiled stylesheet (27 KB,
// 5.3 KB brotli), though a page uses a half of it at most: the home page carried the auth forms',
// the account page's and the toasts' utilities. On `/ar/` that put the document 164 B past the
// first round trip of Lighthouse's simulated connection (14,600 B with the headers), which delayed
// its first paint by a whole round trip.
//
// Now each prerendered page inlines only the rules its own markup matches (Beasties, a maintained
// critical-CSS extractor: its selectors are matched against the page's DOM, pseudo-classes such as
// :hover and :focus kept for elements that exist), and the whole sheet becomes one immutable asset
// that the deferred bootstrap (defer-bootstrap.ts) loads before the framework hydrates, so anything
// rendered afterwards (toasts, dialogs, error states) is styled as before. The whole sheet repeats
// the inlined rules in the same order and layers, so loading it changes nothing already on screen
// (e2e/critical-css.test.ts compares every element's computed style with and without it).
import { createHash } from 'node:crypto';
import Beasties from 'beasties';

/** The inline `<style>` that root.tsx renders with the compiled stylesheet (always the first one). */
const appStylePattern = /<style>([\s\S]*?)<\/style>/;

/** The compiled stylesheet inlined by root.tsx, taken from a prerendered page. */
export function inlinedStylesheet(html: string): string {
  const css = html.match(appStylePattern)?.[1];
  if (!css) throw new Error('critical-css: the inlined stylesheet was not found');
  return css;
}

/** The content-hashed asset path for the whole sheet, in Vite's style (`/assets/app-<hash>.css`). */
export function stylesheetAssetPath(css: string): string {
  const hash = createHash('sha256').update(css).digest('base64url').slice(0, 8);
  return `/assets/app-${hash}.css`;
}

/** Decodes the entities React writes in attribute values. */
const decodeAttribute = (value: string) =>
  value.replace(
    /&(amp|quot|#39|lt|gt);/g,
    (_, name: string) => ({ amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' })[name] ?? '',
  );

/** A CSS identifier with its escapes resolved (`group-aria-expanded\:block`, `\32 xl`). */
const unescapeIdentifier = (value: string) =>
  value.replace(/\\([0-9a-f]{1,6}\s?|.)/gi, (_, escaped: string) =>
    /^[0-9a-f]{1,6}\s?$/i.test(escaped) ? String.fromCodePoint(Number.parseInt(escaped, 16)) : escaped,
  );

/**
 * Selectors of the sheet that Beasties cannot evaluate, kept when the page could use them. Beasties
 * strips every pseudo-class with its argument before matching, so a selector wrapped in `:where()`,
 * `:is()`, `:not()` or `:has()` (Tailwind's `space-y-*`, `rtl:` and `group-aria-*` variants, the
 * home page's off-screen sections) matches nothing and is dropped; nor does it match a class with an
 * `&` (`[&_svg]:shrink-0`). Nor can it know the states inline scripts give the root element before
 * any framework runs (`html[data-no-link]` on the reset page, `html[data-full-layout]`). These are kept when every class they name is on the page (all of them
 * when they name none): a few rules too many at worst, never one too few.
 */
export function unmatchedSelectors(css: string, html: string): string[] {
  const pageClasses = new Set(
    [...html.matchAll(/\sclass="([^"]*)"/g)].flatMap((m) => decodeAttribute(m[1] as string).split(/\s+/)),
  );
  const kept = new Set<string>();
  for (const [, selectorList] of css.matchAll(/([^{}@;]+)\{[^{}]*\}/g)) {
    for (const selector of splitSelectorList((selectorList as string).trim())) {
      if (!/:(where|is|not|has)\(|\\&|^html\[/.test(selector)) continue;
      const classes = [...selector.matchAll(/\.((?:\\[0-9a-f]{1,6}\s?|\\.|[\w-])+)/gi)].map((m) =>
        unescapeIdentifier(m[1] as string),
      );
      if (classes.every((name) => pageClasses.has(name))) kept.add(selector);
    }
  }
  return [...kept];
}

/** A selector list split at its top-level commas (not those inside `:is(…)`, `[…]` or escapes). */
function splitSelectorList(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const char = list[i];
    if (char === '\\') i++;
    else if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(list.slice(start).trim());
  return parts;
}

/**
 * Replaces the page's inlined whole stylesheet with the rules its markup uses. `clientDir` holds the
 * built site, where `href` (the whole sheet, already written) is read from. Beasties only computes
 * the rules: its re-serialized document is thrown away and the rules are spliced into the page as it
 * was, so nothing else in it changes (the bootstrap script, and the hashes the CSP takes of it).
 */
export async function inlineCriticalCss(html: string, href: string, clientDir: string): Promise<string> {
  const sheet = inlinedStylesheet(html);
  const otherStyles = new Set([...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].slice(1).map((m) => m[1]));
  const linked = html.replace(appStylePattern, () => `<link rel="stylesheet" href="${href}">`);
  const beasties = new Beasties({
    path: clientDir,
    publicPath: '/',
    // No @font-face in the app sheet (the Arabic faces have their own <style>, left untouched).
    fonts: false,
    keyframes: 'critical',
    // Selectors Beasties leaves out though they style the page (each found by e2e/critical-css.test.ts):
    //  - bare pseudo-classes and pseudo-elements: stripped, they match nothing, so Beasties drops them;
    //    yet `:focus-visible` is the focus ring of every link, `::backdrop` the menu popover's, and the
    //    preflight's `::placeholder`, `::file-selector-button`, `::-webkit-…` style form fields (kept
    //    where there are some);
    //  - selectors it cannot evaluate (see `unmatchedSelectors`).
    allowRules: [
      /^:[a-z-]+$/,
      /^::backdrop$/,
      ...(/<(input|textarea|select)\b/.test(html) ? [/^::/] : []),
      ...unmatchedSelectors(sheet, html),
    ],
    reduceInlineStyles: false,
    // Keep the rules in the sheet's own order and format.
    compress: false,
    logLevel: 'warn',
  });
  const processed = await beasties.process(linked);
  const added = [...processed.matchAll(/<style>([\s\S]*?)<\/style>/g)]
    .map((m) => m[1] as string)
    .filter((css) => !otherStyles.has(css));
  if (added.length !== 1)
    throw new Error(`critical-css: expected one critical <style>, found ${added.length}`);
  const critical = added[0] as string;
  return html.replace(appStylePattern, () => `<style>${critical}</style>`);
}
