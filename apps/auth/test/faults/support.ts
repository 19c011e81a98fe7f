// Helpers of the fault suite: the real service as a child process (so it can be SIGKILLed or
// SIGTERMed), a TCP proxy in front of PostgreSQL that the test can cut (loopback only), and fresh
// PostgreSQL databases.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../support/entry-process.ts';
import { createFreshDatabase, postgresReachable as isReachable } from '../support/fresh-database.ts';

export const PG_URL =
  process.env.FAULTS_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export { freePort };

export const postgresReachable = () => isReachable(PG_URL);

export async function createDatabase(): Promise<{
  url: string;
  drop(): Promise<void>;
  query: pg.Pool['query'];
}> {
  const database = await createFreshDatabase(PG_URL);
  // The service's tables live in its namespace (DB_NAMESPACE, `auth` here): query them unqualified.
  const pool = new pg.Pool({ connectionString: database.url, max: 2, options: '-c search_path=auth' });
  pool.on('error', () => {});
  return {
    url: database.url,
    query: pool.query.bind(pool) as pg.Pool['query'],
    async drop() {
      await pool.end();
      await database.drop();
    },
  };
}

export type ServiceProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  logs(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  api(path: string, init?: RequestInit): Promise<Response>;
  kill(signal?: NodeJS.Signals): Promise<void>;
};

export const ANON_KEY = 'sb_publishable_namaa_development_key';

/** Starts `node apps/auth/src/main.ts` and waits until /health answers 200 (or the process exits). */
export async function startService(env: Record<string, string>, port?: number): Promise<ServiceProcess> {
  const p = port ?? (await freePort());
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(p),
      SITE_URL: `http://127.0.0.1:${p}`,
      SITE_DIR: '/nonexistent',
      LOG_LEVEL: 'warn',
      MAILER_AUTOCONFIRM: 'true',
      EMAIL_RESPONSE_FLOOR_MS: '0',
      RATE_LIMIT_SIGNIN_PER_IP: '0',
      RATE_LIMIT_SIGNIN_PER_ACCOUNT: '0',
      RATE_LIMIT_OTP_PER_IP: '0',
      RATE_LIMIT_VERIFY_PER_IP: '0',
      RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '0',
      RATE_LIMIT_EMAIL_PER_ADDRESS: '0',
      RATE_LIMIT_EMAIL_FLOOR: '0',
      RATE_LIMIT_EMAIL_SENT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${p}`;
  const service: ServiceProcess = {
    url,
    port: p,
    child,
    logs: () => output,
    exited,
    api(path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('apikey', ANON_KEY);
      if (init.body !== undefined) headers.set('content-type', 'application/json');
      return fetch(`${url}/auth/v1${path}`, { ...init, headers });
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) return service; // the caller inspects exited/logs
    try {
      const res = await fetch(`${url}/auth/v1/health`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill();
      throw new Error(`service did not become healthy:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A loopback TCP proxy to PostgreSQL that can be cut: cut() destroys every open connection and
 * refuses new ones (as a crashed or unreachable server would); restore() lets connections through.
 */
export async function startCuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let up = true;
  const server: Server = createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    port,
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    restore() {
      up = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export const uniqueEmail = (prefix = 'fault') => `${prefix}-${randomBytes(5).toString('hex')}@example.com`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
