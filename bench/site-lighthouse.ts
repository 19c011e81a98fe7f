// Lighthouse (pinned 13.5.0, mobile, simulated throttling) against the real product, with Debian's
// Chromium. Prints the four category scores, LCP, TBT, CLS, the script bytes each page transfers and
// the compressed size of its HTML; writes bench/results/site-lighthouse.json.
//   node bench/site-lighthouse.ts [--runs N] [--pages /,/auth]   (default: 1 run of each of /, /auth,
//   /ar/, /ar/auth; the median is reported). A run Lighthouse itself reports as broken (e.g. its
//   NO_NAVSTART trace error on a cold browser) is repeated, up to twice.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromiumFlags, chromiumPath } from '../e2e/support/chromium.ts';
import { startProduct } from '../e2e/support/product.ts';

const argument = (name: string) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
// Both editions' pages with a performance budget; `--pages /,/auth` narrows the run.
const pages = (argument('--pages') ?? '/,/auth,/ar/,/ar/auth').split(',');
const runs = Number(argument('--runs') ?? 1);
const homeBudgetBytes = 14 * 1024;

type PageResult = {
  path: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  scriptBytes: number;
  htmlBrotliBytes: number;
  htmlGzipBytes: number;
};

const product = await startProduct({ LOG_LEVEL: 'error' });
const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags: chromiumFlags });

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
      for (let attempt = 1; ; attempt++) {
        result = await lighthouse(`${product.origin}${path}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
          formFactor: 'mobile',
          throttlingMethod: 'simulate',
        });
        const runtimeError = result?.lhr.runtimeError;
        if (!runtimeError || attempt === 3) break;
        console.log(`  ${path}: Lighthouse run error ${runtimeError.code}; repeating the run`);
      }
      if (!result) throw new Error('lighthouse returned no result');
      const { categories, audits } = result.lhr;
      if (process.env.LH_SAVE)
        writeFileSync(`/tmp/lhr${path.replace(/\//g, '_')}.json`, JSON.stringify(result.lhr));
      const items =
        (audits['network-requests']?.details as { items?: Array<Record<string, unknown>> })?.items ?? [];
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
console.log('page      perf a11y  bp  seo   FCP ms  LCP ms  TBT ms  CLS    script B  HTML br B  HTML gz B');
for (const r of results) {
  console.log(
    `${r.path.padEnd(9)} ${String(r.performance).padStart(4)} ${String(r.accessibility).padStart(4)} ${String(r.bestPractices).padStart(3)} ${String(r.seo).padStart(4)} ${String(r.fcpMs).padStart(8)} ${String(r.lcpMs).padStart(7)} ${String(r.tbtMs).padStart(7)}  ${r.cls.toFixed(3)} ${String(r.scriptBytes).padStart(9)} ${String(r.htmlBrotliBytes).padStart(10)} ${String(r.htmlGzipBytes).padStart(10)}`,
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
