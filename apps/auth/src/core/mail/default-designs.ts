// The built-in designs are react-email components, rendered once per process into template sources
// (HTML and text with GoTrue's variables where the values go); no request ever renders React.
// Rendering them in a worker thread was tried to keep React out of the server's heap: the process
// then held ~100 MB more RSS after the worker had exited (README, "Footprint"), so they render here.
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

async function render(minutes: number): Promise<DefaultDesigns> {
  const { renderDesigns } = await import('./render-designs.ts');
  return new Map(await renderDesigns(minutes));
}
