// Prometheus metrics (prom-client), served at /metrics (features/ops/metrics.routes.ts).
//
// One registry per process, like the process it describes: counters are module-level so any part of
// the service (a route, a sweep job, the rate limiter) counts with one call and no plumbing. What
// belongs to one running server (its database pool, its mail outbox) is read at scrape time through
// a source that startServer() adds and removes (addMetricsSource), so nothing is polled between
// scrapes. Labels never carry user data (addresses, emails, IPs, raw paths): only route patterns,
// grant types, error codes and limit names, so the series stay few and the page holds no secret.
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Metric, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
// Process CPU, memory, event-loop lag, GC and handles, under their standard names.
collectDefaultMetrics({ register: metricsRegistry });

function existing<T extends Metric>(name: string): T | undefined {
  return metricsRegistry.getSingleMetric(name) as T | undefined;
}

/**
 * A counter any feature can register and keep: idempotent by name, so a module re-imported (tests,
 * two servers in one process) gets the same counter. Names follow Prometheus' rules and end in
 * `_total`, e.g. `metricCounter('namaa_sweep_rows_total', 'Rows deleted by sweeps', ['table'])`.
 */
export function metricCounter<L extends string = string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return (
    existing<Counter<L>>(name) ?? new Counter<L>({ name, help, labelNames, registers: [metricsRegistry] })
  );
}

/** A gauge, registered once by name (see metricCounter); `collect` runs at each scrape. */
export function metricGauge<L extends string = string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (this: Gauge<L>) => void | Promise<void>,
): Gauge<L> {
  return (
    existing<Gauge<L>>(name) ??
    new Gauge<L>({ name, help, labelNames, registers: [metricsRegistry], ...(collect ? { collect } : {}) })
  );
}

// --- HTTP requests -------------------------------------------------------------------------------

const requests = metricCounter(
  'namaa_http_requests_total',
  'HTTP requests answered, by route pattern and status',
  ['method', 'route', 'status'],
);
const duration =
  existing<Histogram<'method' | 'route' | 'status'>>('namaa_http_request_duration_seconds') ??
  new Histogram({
    name: 'namaa_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route pattern and status',
    labelNames: ['method', 'route', 'status'],
    // From a cached site page (~1 ms) to a password hash under load (~1 s) and the 10 s statement cap.
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  });

// Node's HTTP parser accepts ~35 methods; anything unusual is folded so clients cannot mint series.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type RequestSeries = { count: { inc(): void }; time: { observe(v: number): void } };
// The labelled children, cached: on the hot path a request costs a Map look-up, an increment and a
// bucket search, instead of prom-client hashing the label object twice.
const requestSeries = new Map<string, RequestSeries>();

/**
 * Counts one answered request and its duration. `route` is the pattern that answered
 * (`/auth/v1/factors/:factorId`), never the raw path, which carries ids and tokens.
 */
export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  const m = METHODS.has(method) ? method : 'OTHER';
  const key = `${m} ${status} ${route}`;
  let series = requestSeries.get(key);
  if (!series) {
    const labels = { method: m, route, status: String(status) };
    series = { count: requests.labels(labels), time: duration.labels(labels) };
    requestSeries.set(key, series);
  }
  series.count.inc();
  series.time.observe(seconds);
}

// --- Sign-ins, failures, rate limits -------------------------------------------------------------

const signIns = metricCounter(
  'namaa_sign_ins_total',
  'Sessions asked for at POST /token, by grant type (password, refresh_token, pkce, …) and result',
  ['grant_type', 'result'],
);
const authErrors = metricCounter(
  'namaa_auth_errors_total',
  'Error answers of the auth API, by GoTrue error code (invalid_credentials, over_request_rate_limit, …)',
  ['code'],
);
const rateLimitTrips = metricCounter(
  'namaa_rate_limit_trips_total',
  'Requests refused by a rate limit, by limit (signin:ip, otp:ip, email:floor, backoff:signin, …)',
  ['limit'],
);

const GRANTS = new Set(['password', 'refresh_token', 'pkce', 'id_token', 'web3']);

/** One POST /token outcome. Unknown grant types are counted as `other` (the value is the caller's). */
export function countSignIn(grantType: string, result: 'success' | 'failure'): void {
  signIns.inc({ grant_type: GRANTS.has(grantType) ? grantType : 'other', result });
}

/** One error answer, by its GoTrue code (a fixed table in errors.ts, so the series are bounded). */
export function countAuthError(code: string): void {
  authErrors.inc({ code });
}

/**
 * The name of a rate-limit key without the identity it counts: its leading lowercase words, at
 * most two (`signin:ip:203.0.113.9` → `signin:ip`, `email:ann@example.com` → `email`,
 * `backoff:signin:…` → `backoff:signin`). Addresses, emails and ids never become a label.
 */
export function rateLimitName(key: string): string {
  const words: string[] = [];
  for (const part of key.split(':')) {
    if (words.length === 2 || !/^[a-z_]+$/.test(part)) break;
    words.push(part);
  }
  return words.length > 0 ? words.join(':') : 'other';
}

/** One request refused by the rate limit whose counter key is `key`. */
export function countRateLimitTrip(key: string): void {
  rateLimitTrips.inc({ limit: rateLimitName(key) });
}

// --- What a running server has: its database pool and mail outbox ---------------------------------

export type PoolStats = { total: number; idle: number; waiting: number; max: number };

/** Read at scrape time from one running server (startServer adds one; close removes it). */
export type MetricsSource = {
  /** Outbox messages not yet sent nor abandoned. */
  mailQueueDepth(): Promise<number>;
  /** The PostgreSQL pool's connections; undefined on the embedded database (one in-process connection). */
  poolStats(): PoolStats | undefined;
};

const sources = new Set<MetricsSource>();

/** Adds a server's source; returns the function that removes it. */
export function addMetricsSource(source: MetricsSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

metricGauge(
  'namaa_mail_queue_depth',
  'Mail in the outbox waiting to be sent (retries included)',
  [],
  async function () {
    let depth = 0;
    for (const s of sources) depth += await s.mailQueueDepth().catch(() => 0);
    this.set(depth);
  },
);

const poolGauge = (field: keyof PoolStats, name: string, help: string) =>
  metricGauge(name, help, [], function () {
    let value = 0;
    for (const s of sources) value += s.poolStats()?.[field] ?? 0;
    this.set(value);
  });
poolGauge('total', 'namaa_db_pool_connections', 'PostgreSQL connections open in the pool');
poolGauge('idle', 'namaa_db_pool_idle_connections', 'PostgreSQL pool connections open and idle');
poolGauge(
  'waiting',
  'namaa_db_pool_waiting_requests',
  'Queries waiting for a free PostgreSQL pool connection',
);
poolGauge('max', 'namaa_db_pool_max_connections', 'Size limit of the PostgreSQL pool');

/** The exposition page: its content type and text. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
