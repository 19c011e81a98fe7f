import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One Vitest run drives every suite; each project has its own config beside its code (a project
// whose config file does not exist yet is skipped). scripts/run-tests.mjs picks which ones run.
const projects = [
  'apps/auth/vitest.config.ts',
  'apps/auth/vitest.faults.config.ts',
  'apps/web/vitest.config.ts',
  'e2e/vitest.config.ts',
  'deploy/vitest.config.ts',
  'scripts/vitest.config.ts',
].filter((p) => existsSync(new URL(p, import.meta.url)));

export default defineConfig({
  test: { projects },
});
