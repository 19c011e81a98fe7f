// The process entry: `node apps/auth/src/main.ts` (production, systemd, Docker), or `npm start`
// (scripts/start.mjs imports this file and calls main(), with the bundle it just checked). The
// service itself is run-service.ts, imported dynamically so that boot/preload.ts (the resolve
// shortcut and the compile cache) is in force before the service's module graph is resolved: from
// the built bundle (apps/auth/dist) when it was built from exactly these sources, else from the
// sources (boot/service-bundle.ts). On the bundle's first start the compile cache is filled in a
// child first (boot/prime-compile-cache.ts: the server then holds ~21 MiB less).
import './boot/preload.ts';
import { PRIME_FLAG, primeCompileCache, primeInThisProcess } from './boot/prime-compile-cache.ts';
import { chooseEntry, type EntryChoice } from './boot/service-bundle.ts';

export async function main(
  argv: string[] = process.argv.slice(2),
  entry: EntryChoice = chooseEntry(),
): Promise<void> {
  if (argv.includes(PRIME_FLAG)) {
    await primeInThisProcess(entry);
    process.exit(0);
  }
  const primed = argv.includes('--help') || argv.includes('-h') ? false : primeCompileCache(entry);
  const service: typeof import('./run-service.ts') =
    entry.kind === 'bundle' ? await import(entry.url) : await import('./run-service.ts');
  await service.main(argv, entry, { compileCachePrimed: primed });
}

if (import.meta.main) await main();
