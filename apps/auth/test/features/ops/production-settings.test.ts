// Issue #25: production refusals and warnings (SITE_URL, MAIL_FROM, the development ANON_KEY),
// TRUST_PROXY validated at start-up, and one warning when forwarded headers come from an untrusted peer.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig, trustProxyProblem } from '../../../src/config.ts';
import {
  ANON_KEY,
  freePort,
  MAIN,
  repoRoot,
  runEntry,
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

const production: Record<string, string | undefined> = {
  NODE_ENV: 'production',
  DATA_DIR: '/var/lib/namaa',
  SMTP_URL: 'smtp://mail.namaa.example:587',
  SITE_URL: 'https://namaa.example',
  MAIL_FROM: 'Namaa <no-reply@namaa.example>',
  ANON_KEY: 'sb_publishable_our_own_key',
};

function refusal(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('production refusals and warnings', () => {
  it('accepts a complete production configuration without warnings', () => {
    const c = loadConfig(production);
    expect(c.production).toBe(true);
    expect(c.warnings).toEqual([]);
  });

  it('refuses a missing SITE_URL (every email link would point at localhost), in one line', () => {
    const message = refusal({ ...production, SITE_URL: undefined });
    expect(message).toBe(
      'Refusing to start with unsafe settings (NODE_ENV=production): SITE_URL is unset: every email link would point at http://localhost:3000',
    );
  });

  it('refuses MAIL_FROM at localhost (the default), with or without a display name', () => {
    expect(refusal({ ...production, MAIL_FROM: undefined })).toMatch(/MAIL_FROM is no-reply@localhost/);
    expect(refusal({ ...production, MAIL_FROM: 'Namaa <hello@mail.localhost>' })).toMatch(/MAIL_FROM/);
    // Outside production the development default stays.
    expect(loadConfig({}).MAIL_FROM).toBe('no-reply@localhost');
  });

  it('warns (does not refuse) about the development ANON_KEY: it is public by design', () => {
    const c = loadConfig({ ...production, ANON_KEY: undefined });
    expect(c.warnings).toEqual([expect.stringMatching(/^ANON_KEY is the development key/)]);
    expect(loadConfig({}).warnings).toEqual([]);
  });

  it('warns when the embedded database lives inside the checkout (git clean -fdx deletes it)', () => {
    // The default ./data is in the repository; production is the only place it is warned about.
    expect(loadConfig({ ...production, DATA_DIR: undefined }).warnings).toEqual([
      expect.stringMatching(/^DATA_DIR=.*\/data is inside the checkout, where `git clean -fdx`/),
    ]);
    expect(
      loadConfig({ ...production, DATA_DIR: undefined, DATABASE_URL: 'postgres://x@db/x' }).warnings,
    ).toEqual([]);
    expect(loadConfig({ DATA_DIR: undefined }).warnings).toEqual([]);
  });

  it('lists several problems one per line', () => {
    const message = refusal({ NODE_ENV: 'production' });
    expect(message.split('\n')).toEqual([
      'Refusing to start with unsafe settings (NODE_ENV=production):',
      expect.stringMatching(/^ {2}- SMTP_URL is unset/),
      expect.stringMatching(/^ {2}- SITE_URL is unset/),
      expect.stringMatching(/^ {2}- MAIL_FROM is/),
    ]);
  });
});

describe('TRUST_PROXY is validated at start-up', () => {
  it('accepts addresses, CIDR ranges of both families and *', () => {
    for (const ok of ['*', '10.0.0.5', '10.0.0.0/8', '0.0.0.0/0', '::1', 'fd00::/8', '::ffff:10.0.0.0/104'])
      expect(trustProxyProblem(ok), ok).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , ::1 ' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '::1']);
  });

  it('refuses a bad prefix length, garbage, and names (not resolved), each naming TRUST_PROXY', () => {
    expect(trustProxyProblem('10.0.0.0/33')).toMatch(
      /^TRUST_PROXY: "10.0.0.0\/33" has an invalid prefix length \(0 to 32/,
    );
    expect(trustProxyProblem('fd00::/129')).toMatch(/0 to 128 for IPv6/);
    expect(trustProxyProblem('10.0.0.0/x')).toMatch(/invalid prefix length/);
    expect(trustProxyProblem('10.0.0.0/8/8')).toMatch(/invalid prefix length/);
    expect(trustProxyProblem('10.0.0.300')).toMatch(/not an IP address or a CIDR range/);
    expect(trustProxyProblem('nginx')).toMatch(/"nginx" is a name, and names are not resolved/);
    expect(refusal({ TRUST_PROXY: '10.0.0.1,nginx' })).toMatch(
      /^Invalid configuration: TRUST_PROXY: "nginx"/,
    );
  });

  it('the real entry point refuses TRUST_PROXY=10.0.0.0/33 with one line and exit 1 (it used to start and answer 500)', async () => {
    const r = await runEntry(process.execPath, [MAIN], serviceEnv(0, { TRUST_PROXY: '10.0.0.0/33' }));
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Invalid configuration: TRUST_PROXY: "10.0.0.0/33" has an invalid prefix length (0 to 32 for IPv4)',
    );
    expect(r.stdout).toBe('');
  });

  it('the real entry point refuses NODE_ENV=production without SITE_URL, in one line', async () => {
    const env = serviceEnv(0, { ...production, DATA_DIR: '/nonexistent-never-created' });
    delete env.SITE_URL;
    const r = await runEntry(process.execPath, [MAIN], env);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^Refusing to start with unsafe settings \(NODE_ENV=production\): SITE_URL is unset/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

it('in production: one warning for X-Forwarded-For from a peer not in TRUST_PROXY (not per request); stdout is JSON only, the banner names the public URL', async () => {
  const dir = tempDir();
  const port = await freePort();
  // The test talks from 127.0.0.1; TRUST_PROXY lists another address, so the header is not believed.
  const proc = spawnEntry(
    process.execPath,
    [MAIN],
    serviceEnv(port, {
      ...production,
      SMTP_URL: 'smtp://127.0.0.1:9',
      DATA_DIR: dir.path,
      TRUST_PROXY: '10.9.9.9',
      ANON_KEY,
      LOG_LEVEL: 'info',
    }),
  );
  cleanups.push(dir.remove, () => proc.killGroup());
  await waitHealthy(proc, port);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/auth/v1/settings`, {
      headers: { apikey: ANON_KEY, 'x-forwarded-for': `203.0.113.${i + 1}` },
    });
    expect(res.status).toBe(200);
  }
  // Without the header: no warning (a direct client is not a misconfiguration).
  await fetch(`http://127.0.0.1:${port}/auth/v1/settings`, { headers: { apikey: ANON_KEY } });
  await new Promise((r) => setTimeout(r, 300));
  proc.child.kill('SIGTERM');
  await proc.exited;
  const warnings = proc
    .stdout()
    .split('\n')
    .filter((l) => l.includes('X-Forwarded-For arrived from a peer TRUST_PROXY does not list'));
  expect(warnings).toHaveLength(1);
  expect(JSON.parse(warnings[0] as string)).toMatchObject({ level: 40, peer: '127.0.0.1' });
  // stdout is JSON lines only (no plain-text banner in production), and the banner line
  // names the public URL apart from the bind address.
  const lines = proc.stdout().trim().split('\n');
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  const banner = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'listening');
  expect(banner).toMatchObject({
    url: 'https://namaa.example',
    authApi: 'https://namaa.example/auth/v1',
    listen: `127.0.0.1:${port}`,
    production: true,
  });
  // The development ANON_KEY is warned about at start, as JSON.
  expect(proc.stdout()).toMatch(/"level":40[^\n]*"msg":"ANON_KEY is the development key/);
}, 120_000);

it('in production with DATA_DIR inside the checkout (like the default ./data): starts, and warns once as JSON', async () => {
  // Relative, as the default is, and git-ignored (under node_modules), so the test leaves the tree clean.
  const relative = `node_modules/.namaa-test-data-${process.pid}-${Date.now()}`;
  const absolute = join(repoRoot, relative);
  cleanups.push(() => rmSync(absolute, { recursive: true, force: true }));
  const port = await freePort();
  const proc = spawnEntry(
    process.execPath,
    [MAIN],
    serviceEnv(port, {
      ...production,
      SMTP_URL: 'smtp://127.0.0.1:9',
      DATA_DIR: relative,
      ANON_KEY,
      LOG_LEVEL: 'info',
    }),
  );
  cleanups.push(() => proc.killGroup());
  // A fresh on-disk database: 75 s measured to healthy on the loaded two-core machine (10 s idle).
  await waitHealthy(proc, port, 150_000);
  proc.child.kill('SIGTERM');
  await proc.exited;
  const warnings = proc
    .stdout()
    .split('\n')
    .filter((l) => l.includes('is inside the checkout'))
    .map((l) => JSON.parse(l));
  expect(warnings).toEqual([
    expect.objectContaining({
      level: 40,
      msg: `DATA_DIR=${absolute} is inside the checkout, where \`git clean -fdx\` during an upgrade deletes the database: set DATA_DIR outside it (e.g. /var/lib/namaa)`,
    }),
  ]);
}, 200_000);
