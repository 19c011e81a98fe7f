import { defineConfig } from 'vitest/config';

// The service suites (unit + integration). Integration tests start the real service in-process
// (PGlite in memory, or a fresh PostgreSQL database when DATABASE_URL is set) and a real SMTP server.

/**
 * Files that never open the database DATABASE_URL names: they start the product as a process on its
 * embedded database (serviceEnv passes no DATABASE_URL), or test the entry's start-up and settings.
 * The PostgreSQL run (`DATABASE_URL=… npm run test:service`, beside `npm test` in CI) would run them
 * again exactly as the PGlite run does: ~5 minutes of a 2-core CI machine for nothing. Files that
 * run on either database pick theirs themselves (skipIf/runIf on DATABASE_URL).
 */
const embeddedOnly = [
  'test/boot/**',
  'test/core/sms/settings.test.ts',
  'test/features/ops/cli.test.ts',
  'test/features/ops/process-signals.test.ts',
  'test/features/ops/production-settings.test.ts',
];

export default defineConfig({
  test: {
    name: 'auth',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    // The fault suite has its own project (vitest.faults.config.ts, `npm run test:faults`).
    exclude: ['test/faults/**', ...(process.env.DATABASE_URL ? embeddedOnly : [])],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: argon2 and PGlite are CPU-bound, more workers only add contention.
    maxWorkers: 2,
  },
});
