// `npm run mail:designs`: renders the built-in mail designs for the default link lifetime into
// apps/auth/src/core/mail/designs.generated.json, which a default start-up reads instead of loading
// React (core/mail/default-designs.ts). Run it after changing the designs or their copy; a test
// fails while the file and a fresh render differ.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { PRERENDERED_FILE, type PrerenderedDesigns } from '../src/core/mail/default-designs.ts';
import { renderDesigns } from '../src/core/mail/render-designs.ts';
import { linkMinutes } from '../src/core/mail/templates.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(
    'Usage: npm run mail:designs\n\nRenders the built-in mail designs (apps/auth/src/core/mail) for the default MAILER_OTP_EXP into\napps/auth/src/core/mail/designs.generated.json (tests fail when it is out of date).',
  );
  process.exit(0);
}

const minutes = linkMinutes(loadConfig({}));
const file: PrerenderedDesigns = { minutes, designs: Object.fromEntries(await renderDesigns(minutes)) };
writeFileSync(PRERENDERED_FILE, `${JSON.stringify(file, null, 1)}\n`);
console.log(
  `${fileURLToPath(PRERENDERED_FILE)}: ${Object.keys(file.designs).length} designs for ${minutes}-minute links`,
);
