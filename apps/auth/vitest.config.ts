import { defineConfig } from 'vitest/config';

// The service suites (unit + integration). Integration tests start the real service in-process
// (PGlite in memory, or a fresh PostgreSQL database when DATABASE_URL is set) and a real SMTP server.
export default defineConfig({
  test: {
    name: 'auth',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    // The fault suite has its own project (vitest.faults.config.ts, `npm run test:faults`).
    exclude: ['test/faults/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: argon2 and PGlite are CPU-bound, more workers only add contention.
    maxWorkers: 2,
  },
});
