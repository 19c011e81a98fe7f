import { defineConfig } from 'vitest/config';

// One Vitest run drives every suite; each project has its own config beside its code.
export default defineConfig({
  test: {
    projects: ['apps/auth/vitest.config.ts', 'apps/web/vitest.config.ts', 'e2e/vitest.config.ts'],
  },
});
