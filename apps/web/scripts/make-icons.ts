// Renders the raster icons and the Open Graph image from the SVG mark with Debian's Chromium.
// Run once after changing the mark (`node apps/web/scripts/make-icons.ts`); outputs are committed
// to public/ so the build needs no browser.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { siteConfig } from '../app/config/site.ts';
import { en } from '../app/i18n/en.ts';

const publicDir = join(import.meta.dirname, '..', 'public');
const mark = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="100%" height="100%"><rect width="32" height="32" rx="9" fill="#0b3d2e"/><path d="M16 25V14" stroke="#f2b441" stroke-width="2.6" stroke-linecap="round"/><path d="M16 17c0-4.4 3-7 7.5-7-.2 4.5-3 7-7.5 7Z" fill="#7fd1b0"/><path d="M16 20c0-3.6-2.6-5.8-6.5-5.8.2 3.7 2.6 5.8 6.5 5.8Z" fill="#1f9e72"/></svg>`;

/** A .ico file holding one PNG image (valid since Windows Vista; every current browser reads it). */
function icoFromPng(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header.writeUInt8(size >= 256 ? 0 : size, 6);
  header.writeUInt8(size >= 256 ? 0 : size, 7);
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(png.length, 16);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, png]);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox'],
});
const page = await browser.newPage();
async function render(html: string, width: number, height: number): Promise<Buffer> {
  await page.setViewportSize({ width, height });
  await page.setContent(`<html><body style="margin:0">${html}</body></html>`);
  return page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width, height } });
}
const square = (size: number, pad = 0) =>
  `<div style="width:${size}px;height:${size}px;padding:${pad}px;box-sizing:border-box;background:${pad ? '#0b3d2e' : 'transparent'}">${mark}</div>`;

writeFileSync(join(publicDir, 'favicon.ico'), icoFromPng(await render(square(32), 32, 32), 32));
writeFileSync(join(publicDir, 'apple-touch-icon.png'), await render(square(180, 18), 180, 180));
writeFileSync(join(publicDir, 'icon-512.png'), await render(square(512, 40), 512, 512));
writeFileSync(
  join(publicDir, 'og-image.png'),
  await render(
    `<div style="width:1200px;height:630px;box-sizing:border-box;padding:80px;background:radial-gradient(900px 500px at 90% -10%,rgba(31,158,114,.45),transparent),#062219;color:#fff;font-family:'Noto Sans',sans-serif;display:flex;flex-direction:column;justify-content:space-between">
      <div style="display:flex;align-items:center;gap:24px;font-size:48px;font-weight:700"><div style="width:88px;height:88px">${mark}</div>${siteConfig.name}</div>
      <div style="font-size:64px;font-weight:800;line-height:1.1;max-width:980px">${en.hero.headline}</div>
      <div style="font-size:30px;color:#f7cf7d">${en.hero.badge}</div></div>`,
    1200,
    630,
  ),
);
await browser.close();
console.log('icons written to', publicDir);
