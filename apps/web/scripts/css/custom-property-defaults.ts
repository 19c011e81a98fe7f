// Vite plugin: Tailwind v4 declares each internal custom property twice, as an `@property` rule and,
// for browsers without @property, as a fallback `@layer properties { @supports (<old browser>) {
// *, ::before, ::after, ::backdrop { --tw-…: <initial> } } }`. The whole stylesheet is inlined in
// every page (the home page must fit its first 14 KB), so keep one copy: the fallback, made
// unconditional. Every browser then gets the same initial values on every element, which is what the
// `@property { inherits: false; initial-value }` rules express; nothing here animates these
// properties, the one thing only @property could add. (About 350 B brotli on the home page.)
import type { Plugin } from 'vite';

const propertyRule = /@property\s+--tw-[\w-]+\s*\{[^{}]*\}/g;
const guardedFallback = /@layer properties\s*\{\s*@supports[^{]+\{([^{}]*\{[^{}]*\})\s*\}\s*\}/;

export function inlineCustomPropertyDefaults(css: string): string {
  if (!propertyRule.test(css)) return css;
  propertyRule.lastIndex = 0;
  if (!guardedFallback.test(css)) {
    throw new Error(
      'custom-property-defaults: Tailwind output changed shape (no @layer properties fallback)',
    );
  }
  return css.replace(guardedFallback, '@layer properties{$1}').replace(propertyRule, '');
}

/** Applies to the inlined stylesheet (`app.css?inline`), in the client and the prerender build alike. */
export function customPropertyDefaultsPlugin(): Plugin {
  return {
    name: 'namaa:custom-property-defaults',
    enforce: 'post',
    transform(code, id) {
      if (!/\.css\?inline$/.test(id)) return null;
      const literal = code.match(/^export default ("(?:[^"\\]|\\.)*");?\s*$/);
      if (!literal) throw new Error(`custom-property-defaults: unexpected module shape for ${id}`);
      const css = JSON.parse(literal[1] as string) as string;
      return { code: `export default ${JSON.stringify(inlineCustomPropertyDefaults(css))};`, map: null };
    },
  };
}
