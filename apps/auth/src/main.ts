// The process entry: `node apps/auth/src/main.ts` (production, systemd, Docker), or `npm start`
// (scripts/start.mjs imports this file and calls main()). The service itself is run-service.ts.
//
// This file imports nothing else statically: an ES module graph is resolved and linked whole before
// any of it runs, so the resolve shortcut (boot/resolve-shortcut.ts, ~1.5 s and ~200 MB less at
// start-up) must be registered here, before the dynamic import below loads the service's graph.
import { registerResolveShortcut } from './boot/resolve-shortcut.ts';

registerResolveShortcut();

export const { main } = await import('./run-service.ts');

if (import.meta.main) await main();
