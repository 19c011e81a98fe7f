// `npm run docs:settings`: rewrites the settings tables of the root README from config.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/config.ts';
import { withSettingsDocs } from '../src/settings-docs.ts';

const readme = join(repoRoot, 'README.md');
const before = readFileSync(readme, 'utf8');
const after = withSettingsDocs(before);
writeFileSync(readme, after);
console.log(after === before ? 'README.md settings: already up to date' : 'README.md settings: rewritten');
