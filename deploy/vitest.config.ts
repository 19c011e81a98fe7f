import { defineConfig } from 'vitest/config';

// The deployment suite: deploy/'s nginx example with TLS in front of two instances of the real entry
// point on PostgreSQL, the systemd unit checked by systemd-analyze, deploy/install.sh in a fresh git
// clone started as the unit starts it, the Dockerfile read against the unit, and docs/production.md's
// pg_dump/pg_restore recipe. Needs nginx, openssl, git, pg_dump/pg_restore, the npm cache of this
// checkout's `npm ci`, and a PostgreSQL server (DATABASE_URL, default
// postgres://root@127.0.0.1:5432/test); .ci/run installs what a bare machine lacks.
export default defineConfig({
  test: {
    name: 'deploy',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
  },
});
