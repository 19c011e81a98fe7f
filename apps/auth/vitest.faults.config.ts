import { defineConfig } from 'vitest/config';

// The fault suite (`npm run test:faults`): real service processes killed, databases cut through a
// TCP proxy, SMTP down, SIGTERM, two processes on one data directory. Files run one at a time: they
// spawn processes and time outages, and the machine has two cores.
export default defineConfig({
  test: {
    name: 'faults',
    root: import.meta.dirname,
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
