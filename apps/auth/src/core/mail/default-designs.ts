// The built-in designs are react-email components. They are rendered once per process into
// template sources (HTML and text with GoTrue's variables where the values go), in a worker thread:
// React, react-dom/server and react-email's components take ~13 MB of heap once loaded, and a
// loaded module is never unloaded, so rendering in the server's own thread would keep them for the
// life of the process although no request ever renders React (README, "Footprint"). The worker
// exits when done and its heap goes with it.
import { Worker } from 'node:worker_threads';
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
    designs = inWorker(minutes);
    // A failed render is not cached: the next start-up in this process tries again.
    designs.catch(() => cache.delete(minutes));
    cache.set(minutes, designs);
  }
  return designs;
}

function inWorker(minutes: number): Promise<DefaultDesigns> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./default-designs.worker.ts', import.meta.url), {
      workerData: { minutes },
    });
    let result: DefaultDesigns | undefined;
    worker.once('message', (entries: Array<[string, TemplateSources]>) => {
      result = new Map(entries);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`the mail designs' renderer exited with code ${code} before answering`));
    });
  });
}
