// Lighthouse (pinned 13.5.0, mobile, simulated throttling) against the real product, with Debian's
// Chromium. Prints the four category scores, LCP, TBT, CLS, the script bytes each page transfers and
// the compressed size of its HTML; writes bench/results/site-lighthouse.json. "TBT cpu" is the same
// sum from the main thread's CPU time instead of wall-clock time (see cpuTimeTbt): on a busy machine
// Lighthouse's TBT measures the other processes as much as the page.
//   node bench/site-lighthouse.ts [--runs N] [--pages /,/auth] [--env NAME=value,…]   (default: 1 run of each of /, /auth,
//   /ar/, /ar/auth; the median is reported). A run Lighthouse itself reports as broken (e.g. its
//   NO_NAVSTART trace error on a cold browser) is repeated, up to twice.
//   Signed-in pages (`--pages /account,/ar/account`) are measured signed in: an account is created
//   and its session put into the profile's localStorage as supabase-js stores it; before each run the
//   HTTP cache is cleared and the session stored again, and Lighthouse's own storage reset (which would
//   sign the visitor out) is skipped for those runs, so they load as cold as the others.
//   LH_SAVE=/tmp/lh writes each run's report and trace as /tmp/lh_account-1.lhr.json and
//   /tmp/lh_account-1.trace.json (page path with `/` as `_`, run number).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Session } from '@supabase/supabase-js';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { chromiumFlags, chromiumPath } from '../e2e/support/chromium.ts';
import { startProduct } from '../e2e/support/product.ts';
import { storeSession } from '../e2e/support/stored-session.ts';

const argument = (name: string) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
// Both editions' pages with a performance budget; `--pages /,/auth` narrows the run.
const pages = (argument('--pages') ?? '/,/auth,/ar/,/ar/auth').split(',');
const runs = Number(argument('--runs') ?? 1);
const homeBudgetBytes = 14 * 1024;
/** Pages that need a session (they send a signed-out visitor to sign in). */
const signedInPages = new Set(['/account', '/ar/account']);
const needsSession = pages.some((p) => signedInPages.has(p));

type PageResult = {
  path: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cpuTbtMs: number;
  cls: number;
  scriptBytes: number;
  htmlBrotliBytes: number;
  htmlGzipBytes: number;
};

// Autoconfirm only for the signed-in pages' account (a sign-up then returns its session); the public
// pages do not depend on it.
// `--env NAME=value,NAME=value`: settings for the service, e.g. social providers enabled (issue #15:
// their buttons appear from GET /settings once the page has hydrated).
const extraEnv = Object.fromEntries(
  (argument('--env') ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
);
const product = await startProduct({
  LOG_LEVEL: 'error',
  ...(needsSession ? { MAILER_AUTOCONFIRM: 'true' } : {}),
  ...extraEnv,
});
const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags: chromiumFlags });

let session: Session | undefined;
if (needsSession) {
  const config = (await (await fetch(`${product.origin}/runtime-config.json`)).json()) as { anonKey: string };
  const client = createClient(product.origin, config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const { data, error } = await client.auth.signUp({
    email: `lighthouse-${Date.now()}@example.com`,
    password: 'Lighthouse-Bench-Pass-57',
  });
  if (error || !data.session) throw new Error(`could not create the bench account: ${error?.message}`);
  session = data.session;
}

/** A cold HTTP cache and the session in storage, through a second connection to the same Chromium. */
async function prepareSignedIn(): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
  try {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    await storeSession(page, product.origin, session as Session);
    await page.close();
  } finally {
    await browser.close();
  }
}

type TraceEvent = {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { beginData?: { url?: string }; data?: { documentLoaderURL?: string } };
};

/**
 * Total Blocking Time from the main thread's CPU time: the sum over its tasks after the first
 * contentful paint of (4 × CPU time − 50 ms), Lighthouse's CPU slowdown and threshold. Lighthouse's
 * own TBT simulates from wall-clock task lengths, which a busy machine stretches: a task that used
 * 2 ms of CPU can last 30 ms while other processes hold both cores, and counts ×4. The CPU-time sum is
 * what the same load would measure on an idle machine (sync waits inside a task aside), so it ranks
 * two builds measured at different loads.
 */
function cpuTimeTbt(events: TraceEvent[], url: string): number {
  const parse = events.find((e) => e.name === 'ParseHTML' && e.args?.beginData?.url === url);
  if (!parse) return Number.NaN;
  const fcp = events.find(
    (e) => e.name === 'firstContentfulPaint' && e.pid === parse.pid && e.ts >= parse.ts - 1_000_000,
  )?.ts;
  let blocking = 0;
  let end = 0;
  for (const e of events
    .filter((e) => e.pid === parse.pid && e.tid === parse.tid && e.ph === 'X' && e.name === 'RunTask')
    .sort((a, b) => a.ts - b.ts)) {
    if (e.ts < end) continue; // nested
    end = e.ts + (e.dur ?? 0);
    if (fcp !== undefined && e.ts >= fcp) blocking += Math.max(0, (4 * (e.tdur ?? e.dur ?? 0)) / 1000 - 50);
  }
  return Math.round(blocking);
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function htmlSize(path: string, encoding: 'br' | 'gzip'): Promise<number> {
  const response = await fetch(`${product.origin}${path}`, { headers: { 'Accept-Encoding': encoding } });
  await response.arrayBuffer();
  return Number(response.headers.get('content-length'));
}

const results: PageResult[] = [];
try {
  for (const path of pages) {
    const samples: PageResult[] = [];
    for (let i = 0; i < runs; i++) {
      let result: Awaited<ReturnType<typeof lighthouse>>;
      const signedIn = signedInPages.has(path);
      for (let attempt = 1; ; attempt++) {
        if (signedIn) await prepareSignedIn();
        result = await lighthouse(`${product.origin}${path}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
          formFactor: 'mobile',
          throttlingMethod: 'simulate',
          disableStorageReset: signedIn,
        });
        const runtimeError = result?.lhr.runtimeError;
        if (!runtimeError || attempt === 3) break;
        console.log(`  ${path}: Lighthouse run error ${runtimeError.code}; repeating the run`);
      }
      if (!result) throw new Error('lighthouse returned no result');
      const { categories, audits } = result.lhr;
      if (process.env.LH_SAVE) {
        // The report and the observed (unthrottled) trace of each run, to see where the main thread's
        // time goes: open the trace in Chromium's Performance panel, or read its tasks with a script.
        const name = `${process.env.LH_SAVE}${path.replace(/\//g, '_')}-${i + 1}`;
        writeFileSync(`${name}.lhr.json`, JSON.stringify(result.lhr));
        writeFileSync(`${name}.trace.json`, JSON.stringify(result.artifacts.Trace));
      }
      const items =
        (audits['network-requests']?.details as { items?: Array<Record<string, unknown>> })?.items ?? [];
      // A signed-in page that lost its session would measure the redirect to sign in instead.
      if (
        signedIn &&
        !items.some(
          (item) => String(item.url).includes('/auth/v1/account/sessions') && item.statusCode === 200,
        )
      )
        throw new Error(`${path} was not measured signed in (no GET /account/sessions answered 200)`);
      const scriptBytes = items
        .filter((item) => item.resourceType === 'Script')
        .reduce((sum, item) => sum + Number(item.transferSize ?? 0), 0);
      samples.push({
        path,
        performance: Math.round((categories.performance?.score ?? 0) * 100),
        accessibility: Math.round((categories.accessibility?.score ?? 0) * 100),
        bestPractices: Math.round((categories['best-practices']?.score ?? 0) * 100),
        seo: Math.round((categories.seo?.score ?? 0) * 100),
        fcpMs: Math.round(audits['first-contentful-paint']?.numericValue ?? 0),
        lcpMs: Math.round(audits['largest-contentful-paint']?.numericValue ?? 0),
        tbtMs: Math.round(audits['total-blocking-time']?.numericValue ?? 0),
        cpuTbtMs: cpuTimeTbt(
          (result.artifacts.Trace as unknown as { traceEvents: TraceEvent[] }).traceEvents,
          `${product.origin}${path}`,
        ),
        cls: Number((audits['cumulative-layout-shift']?.numericValue ?? 0).toFixed(3)),
        scriptBytes,
        htmlBrotliBytes: await htmlSize(path, 'br'),
        htmlGzipBytes: await htmlSize(path, 'gzip'),
      });
      const failing = Object.values(audits).filter(
        (a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary',
      );
      if (failing.length) console.log(`  ${path} failing audits: ${failing.map((a) => a.id).join(', ')}`);
    }
    const pick = (key: keyof PageResult) => median(samples.map((s) => s[key] as number));
    results.push({
      path,
      performance: pick('performance'),
      accessibility: pick('accessibility'),
      bestPractices: pick('bestPractices'),
      seo: pick('seo'),
      fcpMs: pick('fcpMs'),
      lcpMs: pick('lcpMs'),
      tbtMs: pick('tbtMs'),
      cpuTbtMs: pick('cpuTbtMs'),
      cls: pick('cls'),
      scriptBytes: pick('scriptBytes'),
      htmlBrotliBytes: pick('htmlBrotliBytes'),
      htmlGzipBytes: pick('htmlGzipBytes'),
    });
  }
} finally {
  chrome.kill();
  await product.stop();
}

console.log(`\nLighthouse 13.5.0, mobile, simulated throttling, ${runs} run(s) per page (median)\n`);
console.log(
  'page         perf a11y  bp  seo   FCP ms  LCP ms  TBT ms  TBT cpu  CLS    script B  HTML br B  HTML gz B',
);
for (const r of results) {
  console.log(
    `${r.path.padEnd(12)} ${String(r.performance).padStart(4)} ${String(r.accessibility).padStart(4)} ${String(r.bestPractices).padStart(3)} ${String(r.seo).padStart(4)} ${String(r.fcpMs).padStart(8)} ${String(r.lcpMs).padStart(7)} ${String(r.tbtMs).padStart(7)} ${String(r.cpuTbtMs).padStart(8)}  ${r.cls.toFixed(3)} ${String(r.scriptBytes).padStart(9)} ${String(r.htmlBrotliBytes).padStart(10)} ${String(r.htmlGzipBytes).padStart(10)}`,
  );
}
const budgetOk = results.every(
  (r) => r.performance === 100 && r.accessibility === 100 && r.bestPractices === 100 && r.seo === 100,
);
const homes = results.filter((r) => r.path === '/' || r.path === '/ar/');
const homesOk = homes.every((r) => r.htmlBrotliBytes <= homeBudgetBytes);
console.log(
  `\nbudget: four 100s ${budgetOk ? 'met' : 'NOT met'}; home HTML ${homes.map((r) => `${r.path} ${r.htmlBrotliBytes} B`).join(', ')} brotli (≤ ${homeBudgetBytes} B: ${homesOk ? 'met' : 'NOT met'})`,
);

const outDir = join(import.meta.dirname, 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, 'site-lighthouse.json'),
  `${JSON.stringify({ lighthouse: '13.5.0', formFactor: 'mobile', throttling: 'simulate', runs, date: new Date().toISOString(), results }, null, 2)}\n`,
);
