/**
 * The mixed load of `npm run bench:load` (load-mixed.ts) and of the footprint benchmark
 * (footprint.ts): each connection owns an account and its session and loops over password sign-in
 * (20 %), refresh-token rotation (40 %) and GET /user with its current access token (40 %), each
 * request sent to one of the given service URLs at random.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const ANON_KEY = 'sb_publishable_namaa_development_key';
const PASSWORD = 'bench-load-password';

export type Op = 'signin' | 'refresh' | 'user';
export type LoadSession = { email: string; access: string; refresh: string };

/** What a run saw: latencies per operation (ms), statuses, and the failures that matter. */
export type LoadRecord = {
  latencies: Record<Op, number[]>;
  statuses: Record<string, number>;
  fiveXx: number;
  /** A refresh or user fetch refused for the token the client legitimately holds. */
  lostSessions: number;
  networkErrors: number;
  /** The first few problems, for the report. */
  problems: string[];
};

/**
 * The service environment for a load from one address: the per-IP and per-account limits would
 * otherwise measure themselves, and auto-confirm lets sign-up hand out sessions without mail.
 */
export const LOAD_ENV = {
  MAILER_AUTOCONFIRM: 'true',
  SMTP_URL: 'smtp://127.0.0.1:9', // never used: auto-confirm sends no mail
  MAIL_FROM: 'no-reply@namaa.example',
  RATE_LIMIT_SIGNIN_PER_IP: '0',
  RATE_LIMIT_SIGNIN_PER_ACCOUNT: '0',
  RATE_LIMIT_OTP_PER_IP: '0',
  RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '0',
  EMAIL_RESPONSE_FLOOR_MS: '0',
} as const;

async function call(url: string, path: string, init: { method: string; body?: unknown; token?: string }) {
  const headers: Record<string, string> = { apikey: ANON_KEY };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${url}/auth/v1${path}`, {
    method: init.method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, json: () => JSON.parse(text) as Record<string, string> };
}

const pickOf = (urls: string[]) => () => urls[Math.floor(Math.random() * urls.length)] as string;

/** Signs up `count` accounts (auto-confirmed), each with the session the sign-up returns. */
export async function seedSessions(urls: string[], count: number): Promise<LoadSession[]> {
  const pick = pickOf(urls);
  const sessions: LoadSession[] = [];
  for (let i = 0; i < count; i++) {
    const email = `load-${randomBytes(5).toString('hex')}@example.com`;
    const r = await call(pick(), '/signup', { method: 'POST', body: { email, password: PASSWORD } });
    if (r.status !== 200) throw new Error(`seeding failed: ${r.status}`);
    const j = r.json();
    sessions.push({ email, access: j.access_token as string, refresh: j.refresh_token as string });
  }
  return sessions;
}

export function emptyRecord(): LoadRecord {
  return {
    latencies: { signin: [], refresh: [], user: [] },
    statuses: {},
    fiveXx: 0,
    lostSessions: 0,
    networkErrors: 0,
    problems: [],
  };
}

/** Every session loops over the mix until `until` (epoch ms); `record` (if given) collects the run. */
export async function runMixedLoad(
  urls: string[],
  sessions: LoadSession[],
  until: number,
  record?: LoadRecord,
): Promise<void> {
  const pick = pickOf(urls);
  const note = (problem: string) => {
    if (record && record.problems.length < 5) record.problems.push(problem);
  };
  async function worker(session: LoadSession) {
    while (Date.now() < until) {
      const roll = Math.random();
      const op: Op = roll < 0.2 ? 'signin' : roll < 0.6 ? 'refresh' : 'user';
      const started = performance.now();
      let status = 0;
      try {
        if (op === 'signin') {
          const r = await call(pick(), '/token?grant_type=password', {
            method: 'POST',
            body: { email: session.email, password: PASSWORD },
          });
          status = r.status;
          if (status === 200) {
            const j = r.json();
            // A sign-in starts a new session; the client switches to it (the old one stays valid).
            session.access = j.access_token as string;
            session.refresh = j.refresh_token as string;
          }
        } else if (op === 'refresh') {
          const r = await call(pick(), '/token?grant_type=refresh_token', {
            method: 'POST',
            body: { refresh_token: session.refresh },
          });
          status = r.status;
          if (status === 200) {
            const j = r.json();
            session.access = j.access_token as string;
            session.refresh = j.refresh_token as string;
          } else if (status >= 400 && status < 500 && status !== 429) {
            if (record) record.lostSessions++;
            note(`refresh ${status}`);
          }
        } else {
          const r = await call(pick(), '/user', { method: 'GET', token: session.access });
          status = r.status;
          if (status === 401 || status === 403) {
            if (record) record.lostSessions++;
            note(`user ${status}`);
          }
        }
      } catch (err) {
        if (record) record.networkErrors++;
        note(`network: ${(err as Error).message}`);
      }
      if (!record) continue;
      record.latencies[op].push(performance.now() - started);
      record.statuses[status] = (record.statuses[status] ?? 0) + 1;
      if (status >= 500) record.fiveXx++;
    }
  }
  await Promise.all(sessions.map(worker));
}

/** The resident memory of a process (VmRSS), MiB. */
export function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
}
