// The process entry: `node apps/auth/src/main.ts` (production, systemd, Docker), or `npm start`
// (scripts/start.mjs imports this file and calls main()). The service itself is run-service.ts,
// imported dynamically so that boot/preload.ts (the resolve shortcut and the compile cache) is in
// force before the service's module graph is resolved.
import './boot/preload.ts';

export const { main } = await import('./run-service.ts');

if (import.meta.main) await main();
