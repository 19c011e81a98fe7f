// The real entry points as child processes (node apps/auth/src/main.ts, npm start, the CLIs), for the
// operations suites: signals, start-up failures, migrations by several instances at once.
// Each child leads its own process group, so a test can prove that nothing of it is left running.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const MAIN = join(repoRoot, 'apps/auth/src/main.ts');
export const ANON_KEY = 'sb_publishable_namaa_development_key';
const PRELOAD = join(repoRoot, 'apps/auth/src/boot/preload.ts');

/**
 * Node's arguments for a CLI as its npm script runs it (`npm run admin`, `audit-log`, `import`,
 * `keys:rotate`…: `node --import …/boot/preload.ts <cli>`): with the resolve shortcut and the
 * compile cache, which take about a second off each run.
 */
export const cliArgs = (cli: string, ...args: string[]): string[] => ['--import', PRELOAD, cli, ...args];

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A temporary directory removed by the returned cleanup. */
export function tempDir(prefix = 'namaa-ops-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** npm as the caller ran it (npm_execpath under `npm test`/`npx`), else the npm beside this node. */
export function npmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  if (execPath?.endsWith('.js')) return [process.execPath, [execPath]];
  return ['npm', []];
}

/** A test environment for the service: loopback, no site, no limits in the way, quiet logs. */
export function serviceEnv(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    // The node running the tests first on PATH: npm and its `exec node` must find Node ≥ 22.22.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? tmpdir(),
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    SITE_URL: `http://127.0.0.1:${port}`,
    SITE_DIR: '/nonexistent',
    LOG_LEVEL: 'warn',
    MAILER_AUTOCONFIRM: 'true',
    EMAIL_RESPONSE_FLOOR_MS: '0',
    RATE_LIMIT_SIGNIN_PER_IP: '0',
    RATE_LIMIT_SIGNIN_PER_ACCOUNT: '0',
    RATE_LIMIT_OTP_PER_IP: '0',
    RATE_LIMIT_SIGNIN_BACKOFF_AFTER: '0',
    RATE_LIMIT_EMAIL_PER_ADDRESS: '0',
    RATE_LIMIT_EMAIL_FLOOR: '0',
    ...extra,
  };
}

export type EntryProcess = {
  child: ChildProcess;
  /** stdout and stderr, interleaved as they arrived. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True while any process of the child's group (the child or anything it started) is alive. */
  groupAlive(): boolean;
  /** SIGKILLs the whole group (cleanup). */
  killGroup(): Promise<void>;
};

/**
 * Spawns `command args` in its own process group, from the repository root unless `cwd` names another
 * directory (an installed copy, started from its own checkout as the systemd unit's WorkingDirectory).
 */
export function spawnEntry(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string = repoRoot,
): EntryProcess {
  const child = spawn(command, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let all = '';
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    all += c.toString();
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    all += c.toString();
    err += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const groupAlive = () => {
    try {
      process.kill(-(child.pid as number), 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
  return {
    child,
    output: () => all,
    stdout: () => out,
    stderr: () => err,
    exited,
    groupAlive,
    async killGroup() {
      if (groupAlive()) process.kill(-(child.pid as number), 'SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await exited;
    },
  };
}

/** Waits until GET /auth/v1/health answers 200; throws with the output when the process exits first. */
export async function waitHealthy(proc: EntryProcess, port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      throw new Error(
        `exited (${proc.child.exitCode ?? proc.child.signalCode}) before healthy:\n${proc.output()}`,
      );
    try {
      const res = await fetch(`http://127.0.0.1:${port}/auth/v1/health`, {
        signal: AbortSignal.timeout(2000),
      });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not healthy after ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs a command to completion (CLIs, start-up failures) and returns its status and output. Async,
 * so servers the test itself runs (a fake database) keep answering meanwhile.
 */
export async function runEntry(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const proc = spawnEntry(command, args, env);
  const timer = setTimeout(() => void proc.killGroup(), timeoutMs);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { status: code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export async function portOpen(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/auth/v1/health`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}
