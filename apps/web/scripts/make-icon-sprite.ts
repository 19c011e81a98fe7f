// Writes app/components/ui/icon-sprite.svg: one <symbol> per name of icon-names.ts, drawn from
// Lucide's own icon data (lucide-react ships it as `__iconData`). The pages then reference icons with
// <use href="/assets/icon-sprite-<hash>.svg#name">, so no path data sits in the prerendered HTML
// (it would cost about 2.4 KB of the home page's 14 KB first-window budget) and the sprite is one
// immutable, cached file.
//   node apps/web/scripts/make-icon-sprite.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { iconNames } from '../app/components/ui/icon-names.ts';

type IconNode = Array<[string, Record<string, string>]>;

const drawing =
  ' fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"';

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export async function buildIconSprite(names: readonly string[] = iconNames): Promise<string> {
  const symbols: string[] = [];
  for (const name of names) {
    const module = (await import(`lucide-react/dist/esm/icons/${name}.mjs`)) as {
      __iconData: { node: IconNode };
    };
    const children = module.__iconData.node
      .map(([tag, attributes]) => {
        const attrs = Object.entries(attributes)
          .filter(([key]) => key !== 'key')
          .map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`)
          .join('');
        return `<${tag}${attrs}/>`;
      })
      .join('');
    // Lucide's drawing attributes sit on each symbol: a <use> instance clones the symbol (with its
    // attributes) and inherits from the referencing page, never from this file's root element.
    symbols.push(`<symbol id="${name}" viewBox="0 0 24 24"${drawing}>${children}</symbol>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true">\n${symbols.join('\n')}\n</svg>\n`;
}

export const spritePath = join(import.meta.dirname, '..', 'app', 'components', 'ui', 'icon-sprite.svg');

if (import.meta.main) {
  writeFileSync(spritePath, await buildIconSprite());
  console.log(`make-icon-sprite: ${iconNames.length} icons → ${spritePath}`);
}
