import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { iconNames } from '~/components/ui/icon-names.ts';
import { buildIconSprite, spritePath } from './make-icon-sprite.ts';

describe('icon sprite', () => {
  it('is in sync with icon-names.ts (run `node apps/web/scripts/make-icon-sprite.ts` after editing it)', async () => {
    expect(readFileSync(spritePath, 'utf8')).toBe(await buildIconSprite());
  });

  it('has one drawable symbol per name, with Lucide drawing attributes on each', async () => {
    const sprite = await buildIconSprite();
    const symbols = [
      ...sprite.matchAll(/<symbol id="([a-z0-9-]+)"[^>]*stroke="currentColor"[^>]*>(.*?)<\/symbol>/g),
    ];
    expect(symbols.map((match) => match[1])).toEqual([...iconNames]);
    for (const [, name, body] of symbols)
      expect(body, name).toMatch(/^<(path|circle|rect|line|polyline|ellipse) /);
  });
});
