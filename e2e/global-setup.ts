import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chooseEntry } from '../apps/auth/src/boot/service-bundle.ts';
import { buildSite } from '../apps/web/scripts/build.ts';

const buildService = fileURLToPath(new URL('../apps/auth/scripts/build-service.ts', import.meta.url));

/**
 * Builds what `npm start` builds before it serves, when missing or older than its sources:
 * - the site. The build takes a lock and re-checks freshness once it holds it, so parallel test
 *   runs (or an `npm start`) never build at the same time, and it swaps a complete fresh build into
 *   place (see apps/web/scripts/build.ts);
 * - the service's bundle (apps/auth/dist, about a second), so that the products these tests start
 *   run the code `npm start` runs, not the sources (main.ts picks the bundle when it matches them).
 *   Built into a new folder and swapped in (build-service.ts): safe beside other runs too.
 */
export default function setup(): void {
  buildSite({ ifStale: true });
  const entry = chooseEntry();
  if (entry.kind === 'source' && entry.reason !== 'off')
    execFileSync(process.execPath, [buildService], { stdio: 'inherit' });
}
