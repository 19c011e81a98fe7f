// releaseStartupHeap (src/boot/release-startup-heap.ts) collects without leaving `gc` behind: the
// service's global scope and V8's flags are as they were (a later `vm` context gets no `gc` either).
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { releaseStartupHeap } from '../../src/boot/release-startup-heap.ts';

it('runs a full collection and leaves no gc() in this context or in new ones', () => {
  const hadGc = 'gc' in globalThis;
  // Garbage that only a collection frees: the heap in use drops once the function has run.
  let junk: unknown[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `x${i}` }));
  expect(junk.length).toBe(200_000);
  const before = process.memoryUsage().heapUsed;
  junk = undefined;
  releaseStartupHeap();
  // The 200,000 objects (~10 MB) are gone once it returns.
  expect(process.memoryUsage().heapUsed).toBeLessThan(before - 5 * 1024 * 1024);
  expect('gc' in globalThis).toBe(hadGc);
  expect(runInNewContext('typeof gc')).toBe('undefined');
});
