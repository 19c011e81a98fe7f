// Where a page's main-thread time goes while it loads: a Chromium performance trace (with the V8
// sampling profiler) of one cold load, against the real product, with Debian's Chromium at
// Lighthouse's mobile size and, by default, its 4× CPU slowdown applied for real (so a task is as
// long as Lighthouse's simulation would count it, and React's yields show). Prints every main-thread
// task over 50 ms (what makes Total Blocking Time) with what ran in it: script evaluation of which
// chunk, function calls and timers by chunk, style and layout, garbage collection, and the chunks
// whose code the profiler sampled most; then the total blocking time of the tasks after the first
// paint and the script each chunk cost over the whole load.
//   node bench/site-trace.ts [--page /account] [--cpu 4] [--runs 1] [--settle 6000] [--out /tmp/account]
// `--out` keeps each run's trace (`<out>-<n>.trace.json`, for Chromium's Performance panel).
// /account and /ar/account are loaded signed in (an account created for the run, its session stored
// as supabase-js stores it, as bench/site-lighthouse.ts does).
import { writeFileSync } from 'node:fs';
import { createClient, type Session } from '@supabase/supabase-js';
import { chromium } from 'playwright-core';
import { chromiumFlags, chromiumPath } from '../e2e/support/chromium.ts';
import { startProduct } from '../e2e/support/product.ts';
import { storeSession } from '../e2e/support/stored-session.ts';

const argument = (name: string) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const path = argument('--page') ?? '/account';
const cpu = Number(argument('--cpu') ?? 4);
const runs = Number(argument('--runs') ?? 1);
const out = argument('--out');
const signedIn = path === '/account' || path === '/ar/account';

type TraceEvent = {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  tdur?: number;
  id?: string;
  // biome-ignore lint/suspicious/noExplicitAny: Chromium's trace arguments are free-form JSON, read field by field.
  args?: Record<string, any>;
};

const product = await startProduct({
  LOG_LEVEL: 'error',
  ...(signedIn ? { MAILER_AUTOCONFIRM: 'true' } : {}),
});
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: chromiumFlags.filter((flag) => !flag.startsWith('--headless')),
});

let session: Session | undefined;
if (signedIn) {
  const config = (await (await fetch(`${product.origin}/runtime-config.json`)).json()) as { anonKey: string };
  const client = createClient(product.origin, config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const { data, error } = await client.auth.signUp({
    email: `trace-${Date.now()}@example.com`,
    password: 'Trace-Bench-Pass-57',
  });
  if (error || !data.session) throw new Error(`could not create the bench account: ${error?.message}`);
  session = data.session;
}

const short = (url: string) => (url ? url.replace(/^https?:\/\/[^/]+/, '').replace(/^\/assets\//, '') : '');

async function traceOnce(run: number): Promise<void> {
  // Lighthouse's mobile screen (Moto G Power).
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  if (session) await storeSession(page, product.origin, session);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  await page.goto('about:blank');
  if (cpu > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (data) => {
    events.push(...(data.value as unknown as TraceEvent[]));
  });
  const done = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: {
      includedCategories: [
        'toplevel',
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'v8.execute',
        'v8',
        'disabled-by-default-v8.cpu_profiler',
        'disabled-by-default-v8.compile',
        'blink.user_timing',
        'loading',
        'latencyInfo',
      ],
    },
  });
  await page.goto(`${product.origin}${path}`, { waitUntil: 'load' });
  // Nothing runs in the page while it is traced (Playwright's locators inject and poll scripts of
  // their own): the page gets a fixed time to settle, and is checked once the trace has ended.
  await new Promise((resolve) => setTimeout(resolve, Number(argument('--settle') ?? 6000)));
  await cdp.send('Tracing.end');
  await done;
  if (signedIn && !(await page.getByTestId('account-devices').isVisible()))
    throw new Error(
      `${path} had not shown its sections when the trace ended (signed out, or --settle too short)`,
    );
  await context.close();
  if (out) writeFileSync(`${out}-${run}.trace.json`, JSON.stringify({ traceEvents: events }));
  report(events);
}

function report(events: TraceEvent[]): void {
  // The page's main thread: the renderer thread that parsed the page's HTML.
  const parse = events.find(
    (e) => e.name === 'ParseHTML' && String(e.args?.beginData?.url ?? '').endsWith(path),
  );
  if (!parse) throw new Error('no ParseHTML of the page in the trace');
  const onMain = events.filter((e) => e.pid === parse.pid && e.tid === parse.tid);
  // This load's navigation (the profile's session was stored through an earlier one).
  const navigationStart =
    events
      .filter(
        (e) =>
          e.name === 'navigationStart' &&
          e.pid === parse.pid &&
          e.ts <= parse.ts &&
          String(e.args?.data?.documentLoaderURL ?? '').endsWith(path),
      )
      .at(-1)?.ts ?? parse.ts;
  const fcp = events.find(
    (e) => e.name === 'firstContentfulPaint' && e.pid === parse.pid && e.ts >= navigationStart,
  )?.ts;
  const ms = (us: number) => Math.round(us / 100) / 10;
  // Top-level tasks only (a ThreadControllerImpl::RunTask wraps a RunTask of the same span).
  const tasks: TraceEvent[] = [];
  for (const e of onMain
    .filter((e) => e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask'))
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))) {
    const last = tasks.at(-1);
    if (last && e.ts < last.ts + (last.dur ?? 0)) continue;
    tasks.push(e);
  }
  tasks.splice(0, tasks.length, ...tasks.filter((t) => t.ts >= navigationStart));

  // The sampling profiler's samples on the main thread, each with its leaf frame's chunk.
  const nodes = new Map<number, { url: string; functionName: string }>();
  const samples: Array<{ ts: number; url: string; functionName: string }> = [];
  const profileIds = new Set(
    events.filter((e) => e.name === 'Profile' && e.pid === parse.pid && e.tid === parse.tid).map((e) => e.id),
  );
  const profileStart = new Map<string | undefined, number>();
  for (const e of events) {
    if (e.name === 'Profile' && profileIds.has(e.id)) profileStart.set(e.id, e.args?.data?.startTime);
  }
  const clock = new Map<string | undefined, number>();
  for (const e of events) {
    if (e.name !== 'ProfileChunk' || !profileIds.has(e.id)) continue;
    const data = e.args?.data ?? {};
    for (const node of data.cpuProfile?.nodes ?? [])
      nodes.set(node.id, { url: node.callFrame.url ?? '', functionName: node.callFrame.functionName ?? '' });
    let ts = clock.get(e.id) ?? profileStart.get(e.id) ?? e.ts;
    const ids: number[] = data.cpuProfile?.samples ?? [];
    const deltas: number[] = data.timeDeltas ?? [];
    ids.forEach((id, i) => {
      ts += deltas[i] ?? 0;
      const node = nodes.get(id);
      if (node) samples.push({ ts, ...node });
    });
    clock.set(e.id, ts);
  }

  const describe = (task: TraceEvent) => {
    const end = task.ts + (task.dur ?? 0);
    const inside = onMain.filter((e) => e.ph === 'X' && e.ts >= task.ts && e.ts < end && e !== task);
    const parts = new Map<string, number>();
    const add = (key: string, dur: number) => parts.set(key, (parts.get(key) ?? 0) + dur);
    for (const e of inside) {
      const d = e.dur ?? 0;
      const url = short(e.args?.data?.url ?? e.args?.fileName ?? '');
      if (e.name === 'v8.evaluateModule' || e.name === 'EvaluateScript') add(`evaluate ${url}`, d);
      else if (e.name === 'v8.compileModule' || e.name === 'v8.compile') add(`compile ${url}`, d);
      else if (e.name === 'FunctionCall')
        add(`call ${url}${e.args?.data?.functionName ? ` ${e.args.data.functionName}` : ''}`, d);
      else if (e.name === 'TimerFire' || e.name === 'FireAnimationFrame' || e.name === 'EventDispatch')
        add(`${e.name}${e.args?.data?.type ? ` ${e.args.data.type}` : ''}`, d);
      else if (e.name === 'RunMicrotasks') add('microtasks', d);
      else if (
        [
          'Layout',
          'UpdateLayoutTree',
          'RecalculateStyles',
          'Paint',
          'ParseHTML',
          'ParseAuthorStyleSheet',
        ].includes(e.name)
      )
        add(e.name, d);
      else if (/GC|GarbageCollection/.test(e.name) && e.cat.includes('devtools.timeline')) add('GC', d);
    }
    const bySample = new Map<string, number>();
    const within = samples.filter((s) => s.ts >= task.ts && s.ts < end);
    for (const s of within) {
      const key = s.url ? short(s.url) : `(${s.functionName || 'native'})`;
      bySample.set(key, (bySample.get(key) ?? 0) + 1);
    }
    const top = [...bySample.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
    const total = within.length || 1;
    return {
      parts: [...parts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8),
      sampled: top.map(([key, n]) => `${key} ${Math.round((n / total) * 100)}%`).join(', '),
    };
  };

  console.log(`\n${path}, CPU ${cpu}×: FCP ${fcp ? `${ms(fcp - navigationStart)} ms` : 'n/a'}`);
  // A task's wall-clock length (what Lighthouse counts) and its CPU time (`tdur`): on a busy machine
  // the first also holds the time other processes had the cores.
  const factor = cpu > 1 ? 1 : 4;
  const long = tasks.filter((t) => (t.dur ?? 0) * factor > 50_000);
  let blocking = 0;
  let blockingCpu = 0;
  let cpuAfterFcp = 0;
  for (const task of tasks) {
    if (fcp && task.ts < fcp) continue;
    blockingCpu += Math.max(0, (task.tdur ?? task.dur ?? 0) * factor - 50_000);
    cpuAfterFcp += task.tdur ?? task.dur ?? 0;
  }
  for (const task of long) {
    if (!fcp || task.ts >= fcp) blocking += (task.dur ?? 0) * factor - 50_000;
    const { parts, sampled } = describe(task);
    console.log(
      `  task at ${ms(task.ts - navigationStart)} ms: ${ms(task.dur ?? 0)} ms (CPU ${ms(task.tdur ?? 0)} ms)`,
    );
    for (const [key, d] of parts)
      if (d >= 1000) console.log(`      ${ms(d).toString().padStart(6)} ms  ${key}`);
    if (sampled) console.log(`      sampled: ${sampled}`);
  }
  console.log(
    `  blocking time after FCP (×${factor} − 50 ms a task): ${ms(blocking)} ms by wall clock (${long.length} long tasks), ${ms(blockingCpu)} ms by CPU time; main-thread CPU after FCP ${ms(cpuAfterFcp)} ms`,
  );
  const scriptByChunk = new Map<string, number>();
  for (const s of samples) {
    if (s.ts < navigationStart || !s.url) continue;
    scriptByChunk.set(short(s.url), (scriptByChunk.get(short(s.url)) ?? 0) + 1);
  }
  const interval =
    samples.length > 1 ? (samples.at(-1)!.ts - samples[0]!.ts) / (samples.length - 1) / 1000 : 0;
  console.log(`  sampled script time by chunk (≈${interval.toFixed(2)} ms a sample):`);
  for (const [chunk, n] of [...scriptByChunk.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`      ${String(Math.round(n * interval)).padStart(5)} ms  ${chunk}`);
}

try {
  for (let run = 1; run <= runs; run++) {
    // Chromium now and then drops the start of a trace (no ParseHTML of the page): measure again.
    for (let attempt = 1; ; attempt++) {
      try {
        await traceOnce(run);
        break;
      } catch (error) {
        if (attempt === 3 || !String(error).includes('no ParseHTML')) throw error;
        console.log(`  run ${run}: the trace lost the page's start; measuring again`);
      }
    }
  }
} finally {
  await browser.close();
  await product.stop();
}
