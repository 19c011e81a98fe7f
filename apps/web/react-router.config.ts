import type { Config } from '@react-router/dev/config';
import { prerenderPaths } from './app/config/paths.ts';

// Every route is prerendered to static HTML at build time and only build/client is deployed
// (no SSR server at runtime). `ssr: false` keeps the output purely static; the post-build step
// (scripts/post-build.ts) moves the prerendered 404 pages into place, defers the framework bootstrap and
// precompresses every text asset.
export default {
  appDirectory: 'app',
  // scripts/build.ts builds into a fresh temporary folder, then swaps it in place of build/.
  buildDirectory: process.env.WEB_BUILD_DIR ?? 'build',
  ssr: false,
  prerender: prerenderPaths,
} satisfies Config;
