import { buildSite } from '../apps/web/scripts/build.ts';

/**
 * Builds the site when its output is missing or older than its sources. The build takes a lock and
 * re-checks freshness once it holds it, so parallel test runs (or an `npm start`) never build at the
 * same time, and it swaps a complete fresh build into place (see apps/web/scripts/build.ts).
 */
export default function setup(): void {
  buildSite({ ifStale: true });
}
