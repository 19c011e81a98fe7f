// `npm run docs:settings`: rewrites the settings tables of the root README from config.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/config.ts';
import { withSettingsDocs } from '../src/settings-docs.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    'Usage: npm run docs:settings\n\nRewrites the settings tables of README.md from the schema in apps/auth/src/config.ts\n(a test fails when they differ).',
  );
  process.exit(0);
}

const readme = join(repoRoot, 'README.md');
const before = readFileSync(readme, 'utf8');
const after = withSettingsDocs(before);
writeFileSync(readme, after);
console.log(after === before ? 'README.md settings: already up to date' : 'README.md settings: rewritten');
