import { describe, expect, it } from 'vitest';
import { deferBootstrap } from './defer-bootstrap.ts';

const page = `<html><head><link rel="modulepreload" href="/assets/manifest-1.js"/><link rel="modulepreload" href="/assets/entry.client-2.js"/></head><body><main>x</main><script type="module" async="">import "/assets/manifest-1.js";
import * as route0 from "/assets/root-3.js";
import * as route1 from "/assets/home-4.js";
  
  window.__reactRouterRouteModules = {"root":route0,"en-home":route1};

import("/assets/entry.client-2.js");</script></body></html>`;

describe('deferBootstrap', () => {
  it('removes modulepreload links from head and starts every import on load', () => {
    const out = deferBootstrap(page);
    expect(out).not.toContain('<link rel="modulepreload"');
    expect(out).not.toMatch(/^import /m);
    expect(out).toContain('addEventListener("load",b,{once:true})');
    expect(out).toContain('import("/assets/root-3.js")');
    expect(out).toContain('window.__reactRouterRouteModules={"root":route0,"en-home":route1}');
    expect(out).toContain('["/assets/manifest-1.js","/assets/entry.client-2.js"]');
    expect(out).toContain('<main>x</main>');
    // The side-effect import (manifest) takes a hole so route0 is the root module.
    expect(out).toContain(
      'const[,route0,route1]=await Promise.all([import("/assets/manifest-1.js"),import("/assets/root-3.js")',
    );
  });

  it('produces a script that is valid JavaScript', () => {
    const out = deferBootstrap(page);
    const code = out.match(/<script type="module">([\s\S]*?)<\/script>/)?.[1] ?? '';
    // Module code cannot run here, but it must parse (as an async function body).
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    expect(() => new AsyncFunction(code)).not.toThrow();
  });

  it('can wait for the first interaction, or load at once when a session must be restored', () => {
    const out = deferBootstrap(page, 'interaction');
    expect(out).toContain('"pointerdown","pointermove","touchstart","keydown","focusin","scroll","wheel"');
    expect(out).toContain('/^sb-.+-auth-token$/');
    const code = out.match(/<script type="module">([\s\S]*?)<\/script>/)?.[1] ?? '';
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    expect(() => new AsyncFunction(code)).not.toThrow();
  });

  it('replays a submit asked for before hydration only on pages that have a form', () => {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const withForm = deferBootstrap(
      page.replace(
        '<main>x</main>',
        '<main><form method="post"><button type="button">mode</button><button type="submit">go</button></form></main>',
      ),
      'interaction',
    );
    const without = deferBootstrap(page, 'interaction');
    expect(withForm).toContain('f?.isConnected&&f.requestSubmit()');
    expect(without).not.toContain('requestSubmit');
    expect(without).not.toContain('addEventListener("keydown",K');
    // A plain button's click is replayed only where there is one (the popover toggle needs none).
    expect(withForm).toContain('p?.isConnected&&p.click()');
    expect(without).not.toContain('p.click()');
    const popoverOnly = deferBootstrap(
      page.replace('<main>x</main>', '<main><button type="button" popoverTarget="m">menu</button></main>'),
      'interaction',
    );
    expect(popoverOnly).not.toContain('p.click()');
    for (const out of [withForm, without, popoverOnly]) {
      const code = out.match(/<script type="module">([\s\S]*?)<\/script>/)?.[1] ?? '';
      expect(() => new AsyncFunction(code)).not.toThrow();
    }
  });

  it('fails loudly when React Router changes its bootstrap shape', () => {
    expect(() => deferBootstrap('<html><body></body></html>')).toThrow(/not found/);
  });

  it('loads the whole stylesheet with the modules, and links the manifest, when asked', () => {
    const plain = deferBootstrap(page, 'interaction');
    expect(plain).not.toContain('rel="stylesheet"');
    expect(plain).not.toContain('"manifest"');
    const out = deferBootstrap(page, 'interaction', {
      stylesheet: '/assets/app-abc.css',
      manifest: '/site.webmanifest',
    });
    // Hydration (the entry import) waits for the sheet: it is one of the awaited promises.
    expect(out).toMatch(
      /await Promise\.all\(\[import\("\/assets\/manifest-1\.js"\),[^\]]*,new Promise\(r=>\{const c=document\.createElement\("link"\);c\.rel="stylesheet";c\.href="\/assets\/app-abc\.css";c\.onload=c\.onerror=r;/,
    );
    expect(out).toContain('m.rel="manifest";m.href="/site.webmanifest"');
    const code = out.match(/<script type="module">([\s\S]*?)<\/script>/)?.[1] ?? '';
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    expect(() => new AsyncFunction(code)).not.toThrow();
  });
});
