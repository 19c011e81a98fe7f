// The built-in designs are react-email components, rendered into template sources (HTML and text
// with GoTrue's variables where the values go); no request ever renders React.
//
// For the default link lifetime (MAILER_OTP_EXP=3600, "60 minutes" in the copy) the sources come
// rendered in designs.generated.json (`npm run mail:designs`; a test fails when the file and a
// fresh render differ), so a default start-up never loads React, react-dom and html-to-text: ~1 s of
// CPU and ~10–40 MB less (README, "Footprint"). Any other lifetime renders them here, once per
// process (the copy's Arabic plural depends on the number). Rendering in a worker thread was tried:
// the process then held ~100 MB more RSS after the worker had exited.
import { readFile } from 'node:fs/promises';
import type { MailKind } from './copy.ts';
import type { MailLocale } from './locale.ts';

export type TemplateSources = { subject: string; html: string; text: string };
/** Sources by `${kind}:${locale}`. */
export type DefaultDesigns = Map<string, TemplateSources>;

export const designKey = (kind: MailKind, locale: MailLocale) => `${kind}:${locale}`;

/** Per process and link lifetime: a test run starts many servers with the same settings. */
const cache = new Map<number, Promise<DefaultDesigns>>();

/** Every kind in every language, for links that expire after `minutes`. */
export function renderDefaultDesigns(minutes: number): Promise<DefaultDesigns> {
  let designs = cache.get(minutes);
  if (!designs) {
    designs = render(minutes);
    // A failed render is not cached: the next start-up in this process tries again.
    designs.catch(() => cache.delete(minutes));
    cache.set(minutes, designs);
  }
  return designs;
}

/** The committed render (`npm run mail:designs`): the link lifetime it is for and the sources. */
export const PRERENDERED_FILE = new URL('./designs.generated.json', import.meta.url);
export type PrerenderedDesigns = { minutes: number; designs: Record<string, TemplateSources> };

async function render(minutes: number): Promise<DefaultDesigns> {
  const committed = JSON.parse(await readFile(PRERENDERED_FILE, 'utf8')) as PrerenderedDesigns;
  if (committed.minutes === minutes) return new Map(Object.entries(committed.designs));
  const { renderDesigns } = await import('./render-designs.ts');
  return new Map(await renderDesigns(minutes));
}
