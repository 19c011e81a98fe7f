// One full garbage collection once the service is up. Start-up (loading and compiling a few
// thousand modules, reading the site's files) leaves V8's heap at ~100 MB committed of which ~35 MB
// stays alive, and an idle process allocates too little to trigger another collection: the heap
// would keep that size for good (measured on PostgreSQL: 177 MiB resident, 126 MiB after this
// collection; README, "Footprint"). It costs ~60–80 ms once, after the server listens.
//
// Node exposes no collection without `--expose-gc`, which an operator's `node apps/auth/src/main.ts`
// does not pass; the flag is switched on just long enough to obtain `gc` in a throwaway context
// (the main context's globals are not touched), then off again.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function releaseStartupHeap(): void {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    setFlagsFromString('--no-expose-gc');
    // 'last-resort': V8's collection of all available garbage, which also compacts and gives the
    // freed pages back at once (after an ordinary full collection that waits for the memory
    // reducer, 8 s later).
    if (typeof gc === 'function') gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    // A runtime that refuses the flag: the heap settles at its next natural collection instead.
  }
}
