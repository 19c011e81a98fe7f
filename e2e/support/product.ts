import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type Product = { origin: string; logs: () => string; stop: () => Promise<void> };

/**
 * Starts the real product (`node apps/auth/src/main.ts`: the auth API and the built site in one
 * process) on a free loopback port with a fresh data directory, and waits for /auth/v1/health.
 */
export async function startProduct(
  env: Record<string, string> = {},
  /** The script to run: the service entry by default, or scripts/start.mjs (what `npm start` runs). */
  entry = 'apps/auth/src/main.ts',
  // 'localhost' where the page needs a domain (WebAuthn refuses IP addresses as relying party ids).
  options: { hostname?: string } = {},
): Promise<Product> {
  const port = await freePort();
  const origin = `http://${options.hostname ?? '127.0.0.1'}:${port}`;
  const probe = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'namaa-e2e-'));
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      SITE_URL: origin,
      DATA_DIR: dataDir,
      MAILER_AUTOCONFIRM: 'false',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  // Under the hook's 120 s: a loaded 2-core machine has taken over 70 s to open and migrate PGlite.
  const deadline = Date.now() + 110_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited during start-up:\n${output}`);
    try {
      const response = await fetch(`${probe}/auth/v1/health`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the product did not become healthy within 110 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }

  return {
    origin,
    logs: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
