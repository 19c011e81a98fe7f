import { defineConfig } from 'vitest/config';

// End-to-end suite: the real product (`node apps/auth/src/main.ts`), a real SMTP server and Debian's
// Chromium through playwright-core. Files run one at a time (2-core machine, one browser each).
export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    globalSetup: ['./global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
