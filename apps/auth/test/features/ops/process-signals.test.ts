// Issue #25: SIGTERM to the process an operator (or docker stop, systemd, a script) signals must drain
// the requests in flight and exit 0, leaving nothing behind that keeps the port. Both documented ways
// to run the service are checked: `npm start` (npm → scripts/start.mjs, exec'd through npm's shell)
// and the production entry point `node apps/auth/src/main.ts`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ANON_KEY,
  type EntryProcess,
  freePort,
  MAIN,
  npmCommand,
  portOpen,
  serviceEnv,
  spawnEntry,
  tempDir,
  waitHealthy,
} from '../../support/entry-process.ts';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
// Each test spawns real processes: on a loaded two-core machine a start alone can take 20 s or more.
vi.setConfig({ testTimeout: 120_000 });

async function drainsOnSigterm(start: (port: number, env: Record<string, string>) => EntryProcess) {
  const dir = tempDir();
  const port = await freePort();
  // Sign-up answers no sooner than 2.5 s, so it is surely in flight when the signal lands.
  const proc = start(port, serviceEnv(port, { DATA_DIR: dir.path, EMAIL_RESPONSE_FLOOR_MS: '2500' }));
  cleanups.push(dir.remove, () => proc.killGroup());
  await waitHealthy(proc, port);

  const inFlight = fetch(`http://127.0.0.1:${port}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: ANON_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'drain@example.com', password: 'correct horse battery' }),
  });
  await new Promise((r) => setTimeout(r, 500));
  // The signal goes to the one process we started (npm itself, or node), never to its group.
  proc.child.kill('SIGTERM');

  const res = await inFlight;
  expect(res.status).toBe(200);
  expect(((await res.json()) as { access_token?: string }).access_token).toBeTruthy();
  const { code, signal } = await proc.exited;
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  // Nothing of the tree is left: no orphaned server keeps the port.
  await new Promise((r) => setTimeout(r, 200));
  expect(proc.groupAlive()).toBe(false);
  expect(await portOpen(port)).toBe(false);
  expect(proc.output()).toMatch(/"msg":"shutting down"/);
}

describe('SIGTERM drains and exits 0 with no orphan', () => {
  it('to `npm start` (the npm process itself)', async () => {
    const [npm, npmArgs] = npmCommand();
    await drainsOnSigterm((_port, env) =>
      spawnEntry(npm, [...npmArgs, 'start'], { ...env, LOG_LEVEL: 'info' }),
    );
  }, 120_000);

  it('to the production entry point `node apps/auth/src/main.ts`', async () => {
    await drainsOnSigterm((_port, env) =>
      spawnEntry(process.execPath, [MAIN], { ...env, LOG_LEVEL: 'info' }),
    );
  }, 120_000);
});
