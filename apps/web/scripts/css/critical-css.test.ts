import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inlineCriticalCss, stylesheetAssetPath, unmatchedSelectors } from './critical-css.ts';

// The browser check of every built page is e2e/critical-css.test.ts; these pin the rules themselves.
const sheet = [
  '.used{color:red}',
  '.unused{color:blue}',
  '.used:hover{color:green}',
  ':focus-visible{outline:3px solid}',
  '::placeholder{opacity:1}',
  ':where(.stack>:not(:last-child)){margin-block-end:1rem}',
  ':where(.absent>:not(:last-child)){margin-block-end:2rem}',
  '.\\[\\&_svg\\]\\:shrink-0 svg{flex-shrink:0}',
  'html[data-no-link] [data-show=link],html:not([data-no-link]) [data-show=no-link]{display:none}',
].join('');
const page = (body: string) =>
  `<!DOCTYPE html><html lang="en"><head><style>${sheet}</style><style>.other{}</style></head><body>${body}<script>x()</script></body></html>`;
const dir = mkdtempSync(join(tmpdir(), 'critical-css-'));
const href = stylesheetAssetPath(sheet);
writeFileSync(join(dir, href.split('/').pop() as string), sheet);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('inlineCriticalCss', () => {
  it('keeps the rules the markup uses (with their states), drops the rest, and changes nothing else', async () => {
    const body = '<p class="used">a</p><ul class="stack"><li>1</li><li>2</li></ul><p data-show="link">l</p>';
    const out = await inlineCriticalCss(page(body), href.replace('/assets/', '/'), dir);
    const inlined = out.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    expect(inlined).toContain('.used{color:red}');
    expect(inlined).toContain('.used:hover{color:green}');
    expect(inlined).toContain(':focus-visible{outline:3px solid}');
    expect(inlined).toContain('.stack>:not(:last-child)');
    expect(inlined).toContain('html[data-no-link] [data-show=link]');
    expect(inlined).not.toContain('.unused');
    expect(inlined).not.toContain('.absent');
    expect(inlined).not.toContain('shrink-0');
    // No form field on the page: the preflight's field pseudo-elements wait for the whole sheet.
    expect(inlined).not.toContain('::placeholder');
    // Everything but the first <style>'s content is byte for byte the page as it was.
    expect(out.replace(inlined, '')).toBe(page(body).replace(sheet, ''));
  });

  it('keeps the field pseudo-elements where there is a field, and classes named with &', async () => {
    const body = '<input class="used"><a class="[&amp;_svg]:shrink-0"><svg></svg></a>';
    const out = await inlineCriticalCss(page(body), href.replace('/assets/', '/'), dir);
    const inlined = out.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    expect(inlined).toContain('::placeholder{opacity:1}');
    expect(inlined).toContain('shrink-0 svg{flex-shrink:0}');
  });
});

describe('unmatchedSelectors', () => {
  it('lists the selectors Beasties cannot evaluate whose classes are all on the page', () => {
    const kept = unmatchedSelectors(sheet, '<ul class="stack"></ul>');
    expect(kept).toContain(':where(.stack>:not(:last-child))');
    expect(kept).not.toContain(':where(.absent>:not(:last-child))');
    expect(kept).toContain('html:not([data-no-link]) [data-show=no-link]');
    expect(kept).toContain('html[data-no-link] [data-show=link]');
    expect(kept).not.toContain('.used');
  });
});
