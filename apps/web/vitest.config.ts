import { defineConfig } from 'vitest/config';

// Unit tests of the site's pure logic (validation, error mapping, mode parsing, paths, catalogs).
export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    name: 'web',
    root: import.meta.dirname,
    include: ['app/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
  },
});
