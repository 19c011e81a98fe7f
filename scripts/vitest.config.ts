import { defineConfig } from 'vitest/config';

// The repository's own tooling: the test runner's reporting (what CI prints when something fails).
export default defineConfig({
  test: {
    name: 'tooling',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
  },
});
