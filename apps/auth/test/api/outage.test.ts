// A database outage answers 503 + Retry-After (the client keeps its session on 503), never 500; and
// what the service says at start-up about running in production.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, vi } from 'vitest';
import { PGLITE_DURABILITY_WARNING } from '../../src/run-service.ts';
import { startTestServer, uniqueEmail } from '../support/test-server.ts';

// 90 s: a server start and an argon2 sign-up, which took 17 s of the default 30 beside CI's other suites.
it('answers 503 with Retry-After on refresh, sign-in and health when the database is gone', {
  timeout: 90_000,
}, async () => {
  const t = await startTestServer({ MAILER_AUTOCONFIRM: 'true' });
  try {
    const email = uniqueEmail('outage');
    const { data } = await t.client().auth.signUp({ email, password: 'secret-pass' });
    await t.server.deps.database.close();
    const refresh = await t.api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: data.session!.refresh_token }),
    });
    expect(refresh.status).toBe(503);
    expect(refresh.headers.get('retry-after')).toBe('5');
    expect((await refresh.json()).error_code).toBe('service_unavailable');
    const signIn = await t.api('/token?grant_type=password', {
      method: 'POST',
      body: JSON.stringify({ email, password: 'secret-pass' }),
    });
    expect(signIn.status).toBe(503);
    const health = await fetch(`${t.url}/auth/v1/health`);
    expect(health.status).toBe(503);
  } finally {
    await t.close().catch(() => {});
  }
});

it('refuses to start in production with unsafe defaults (exit code 1, clear message)', () => {
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const result = spawnSync(process.execPath, [main], {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', SITE_URL: 'http://namaa.example' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/SMTP_URL is unset/);
  expect(result.stderr).toMatch(/SITE_URL must be https/);
});

/** Starts the service in production on PGlite and returns its log lines up to 'listening'. */
async function productionStartLines(extra: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'namaa-prod-'));
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      SITE_URL: 'https://namaa.example',
      SMTP_URL: 'smtp://127.0.0.1:1',
      MAIL_FROM: 'no-reply@namaa.example',
      DATA_DIR: dataDir,
      PORT: '0',
      ...extra,
    },
  });
  try {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    await vi.waitFor(() => expect(out).toMatch(/"msg":"listening"/), { timeout: 90_000, interval: 50 });
    return out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

it('warns in production when the embedded database is told not to flush commits (PGLITE_FSYNC=false)', {
  timeout: 200_000,
}, async () => {
  const warnings = (lines: Array<Record<string, unknown>>) =>
    lines.filter((l) => l.level === 40 && l.msg === PGLITE_DURABILITY_WARNING);
  const relaxed = await productionStartLines({ PGLITE_FSYNC: 'false' });
  expect(warnings(relaxed)).toEqual([
    expect.objectContaining({ dataDir: expect.stringContaining('namaa-prod-') }),
  ]);
  // The default flushes every commit (db/pglite-durable.test.ts): nothing to warn about.
  const durable = await productionStartLines({});
  expect(durable.some((l) => l.msg === 'listening')).toBe(true);
  expect(warnings(durable)).toEqual([]);
});
