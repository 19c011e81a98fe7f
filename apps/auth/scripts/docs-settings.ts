// `npm run docs:settings`: rewrites the settings tables of the root README from config.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/config.ts';
import { withOutboundDocs } from '../src/core/outbound.ts';
import { withSettingsDocs } from '../src/settings-docs.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    'Usage: npm run docs:settings\n\nRewrites the settings tables of README.md from the schema in apps/auth/src/config.ts, and its\n"Every outbound call" table from apps/auth/src/core/outbound.ts (tests fail when they differ).',
  );
  process.exit(0);
}

const readme = join(repoRoot, 'README.md');
const before = readFileSync(readme, 'utf8');
const after = withOutboundDocs(withSettingsDocs(before));
writeFileSync(readme, after);
console.log(
  after === before
    ? 'README.md settings and outbound calls: already up to date'
    : 'README.md settings and outbound calls: rewritten',
);
