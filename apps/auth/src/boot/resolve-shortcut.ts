// A module-resolution shortcut for drizzle-orm, registered before the service's module graph loads.
//
// Why: for every `.js` file it loads, Node's ESM loader looks up the package scope to learn the
// file's format, and Node 24 rebuilds the nearest package.json's data on each look-up, parsing its
// `exports` again. drizzle-orm's package.json is ~180 KB of exports and the service loads ~440 of
// its modules: measured on the 2-core VM, importing drizzle-orm's drivers took 1.5 s (4 s under
// load) and grew the heap by ~200 MB of garbage that V8 kept committed for seconds, the largest
// part of the start-up time and of the start-up memory peak (README, "Footprint").
//
// What: a relative `.js` import from inside drizzle-orm (its own files, which its package.json
// declares `"type": "module"` for, with no nested package.json) resolves to the file next to the
// importer as an ES module, without the look-up. Everything else goes to Node's resolver as before.
// Bare specifiers (`drizzle-orm/pg-core`) still go through the exports map, once each.
import { registerHooks } from 'node:module';

const DRIZZLE = '/node_modules/drizzle-orm/';

let registered = false;
let hits = 0;

/** How many imports the shortcut has resolved in this process (its test checks it is in use). */
export const resolveShortcutHits = () => hits;

/** Idempotent; a Node without `module.registerHooks` (older than 22.15) just loads more slowly. */
export function registerResolveShortcut(): void {
  if (registered || typeof registerHooks !== 'function') return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (
        specifier.startsWith('.') &&
        specifier.endsWith('.js') &&
        context.parentURL?.startsWith('file:') &&
        context.parentURL.includes(DRIZZLE)
      ) {
        hits++;
        return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}
