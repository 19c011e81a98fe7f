// Issue #25, "From a fresh machine": deploy/install.sh run in a fresh clone of this repository, as an
// operator runs it in /opt/namaa, then the installed copy started exactly as the systemd unit starts
// it (bin/node, the unit's flags, environment and working directory, the example settings with
// production values) on a fresh PostgreSQL database: the health check, the site in both languages,
// supabase-js sign-up and sign-in, and a clean SIGTERM. Nothing of the development checkout is used
// by the installed copy: its own node_modules (pruned), its own build, its own bin/node.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EntryProcess,
  freePort,
  repoRoot,
  spawnEntry,
  tempDir,
  waitHealthy,
} from '../../apps/auth/test/support/entry-process.ts';
import { createFreshDatabase, type FreshDatabase } from '../../apps/auth/test/support/fresh-database.ts';
import { readExampleSettings, readServiceUnit } from './deploy-files.ts';

const work = tempDir('namaa-install-');
const clone = join(work.path, 'namaa');
let install: { code: number | null; output: string; seconds: number } | undefined;

// Development tools that must not be in the installed copy: the test runner, the linter, the site's
// bundler and the migration generator. Each is checked below to be declared for development only.
const DEV_ONLY = ['vitest', '@biomejs/biome', 'vite', 'drizzle-kit'];

beforeAll(async () => {
  // HEAD of the checkout the test runs in (in CI, itself a clean clone of main); uncommitted changes
  // are not in it, as they would not be in an operator's clone.
  execFileSync('git', ['clone', '--quiet', repoRoot, clone], { stdio: 'pipe' });
  const started = performance.now();
  const proc = spawnEntry(
    join(clone, 'deploy/install.sh'),
    [],
    {
      // The Node running the tests first on PATH (≥ 22.22), so the script downloads none; the
      // machine's npm cache (filled by the checkout's own `npm ci`) serves every package.
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? work.path,
      npm_config_prefer_offline: 'true',
    },
    clone,
  );
  const timer = setTimeout(() => void proc.killGroup(), 840_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  install = { code, output: proc.output(), seconds: Math.round((performance.now() - started) / 100) / 10 };
  console.log(`deploy/install.sh in a fresh clone: ${install.seconds} s, exit ${code}`);
}, 900_000);

afterAll(() => work.remove());

describe('deploy/install.sh in a fresh clone', () => {
  it('exits 0 and leaves the clone as git gave it (what it writes is ignored, so `git pull` upgrades)', () => {
    expect(install?.code, install?.output).toBe(0);
    expect(install?.output).toMatch(/install: done in \d+ s/);
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: clone,
      encoding: 'utf8',
    });
    expect(status).toBe('');
  });

  it('builds the site in both languages', () => {
    const client = join(clone, 'apps/web/build/client');
    expect(readFileSync(join(client, 'index.html'), 'utf8')).toMatch(
      /^<!DOCTYPE html><html lang="en" dir="ltr">/,
    );
    expect(readFileSync(join(client, 'ar/index.html'), 'utf8')).toMatch(
      /^<!DOCTYPE html><html lang="ar" dir="rtl">/,
    );
  });

  it('removes the development tools (npm prune --omit=dev)', () => {
    const manifests = ['package.json', 'apps/auth/package.json', 'apps/web/package.json'].map(
      (p) =>
        JSON.parse(readFileSync(join(clone, p), 'utf8')) as {
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        },
    );
    for (const name of DEV_ONLY) {
      // Declared for development somewhere, and as a runtime dependency nowhere.
      expect(
        manifests.some((m) => m.devDependencies?.[name]),
        name,
      ).toBe(true);
      expect(
        manifests.some((m) => m.dependencies?.[name]),
        name,
      ).toBe(false);
      for (const dir of ['node_modules', 'apps/auth/node_modules', 'apps/web/node_modules'])
        expect(existsSync(join(clone, dir, name)), `${dir}/${name}`).toBe(false);
    }
    expect(existsSync(join(clone, 'node_modules/.bin/vitest'))).toBe(false);
    // What the service runs on is still there.
    expect(existsSync(join(clone, 'node_modules/hono/package.json'))).toBe(true);
  });

  it('links bin/node to a Node ≥ 22.22', () => {
    const link = join(clone, 'bin/node');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const version = execFileSync(link, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const [major, minor] = version.split('.').map(Number) as [number, number];
    expect(major > 22 || (major === 22 && minor >= 22), version).toBe(true);
  });
});

describe('the installed copy, started as the systemd unit starts it', () => {
  let database: FreshDatabase;
  let port: number;
  let server: EntryProcess | undefined;
  let anonKey: string;
  let killSignal: NodeJS.Signals;

  beforeAll(async () => {
    database = await createFreshDatabase(process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test');
    port = await freePort();
    const unit = readServiceUnit(String(port));
    // The unit's paths, moved under the test's directory: the checkout (/opt/namaa) is the clone, and
    // systemd's CacheDirectory and StateDirectory are directories of the test's own.
    const place = (value: string) =>
      value
        .replaceAll(unit.workingDirectory, clone)
        .replaceAll('/var/cache/namaa', join(work.path, 'cache'))
        .replaceAll('/var/lib/namaa', join(work.path, 'state'));
    // /etc/namaa/namaa.env as an operator fills it from the example: their database and mail server
    // (nothing listens there: with MAILER_AUTOCONFIRM a sign-up sends no mail), secrets of their own.
    // SITE_URL, MAIL_FROM and TRUST_PROXY stay as the example has them. Every CHANGE-ME placeholder
    // must be replaced (production refuses one left in), so the test checks none is left over.
    const example = readExampleSettings();
    const settings: Record<string, string> = {
      ...example,
      ANON_KEY: `sb_publishable_${randomBytes(16).toString('hex')}`,
      DATABASE_URL: database.url,
      SMTP_URL: `smtp://mailer:secret@127.0.0.1:${await freePort()}`,
      SERVICE_ROLE_KEY: randomBytes(24).toString('hex'),
      METRICS_TOKEN: randomBytes(32).toString('hex'),
      MAILER_AUTOCONFIRM: 'true',
    };
    expect(Object.entries(settings).filter(([, value]) => /CHANGE-ME/.test(value))).toEqual([]);
    anonKey = settings.ANON_KEY as string;
    killSignal = unit.killSignal as NodeJS.Signals;
    const env: Record<string, string> = {
      // What systemd gives a service: its default PATH (whatever node is on it, if any, is not the one
      // the unit runs; on this machine and in CI it is Node 20) and the service user's home.
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: clone,
      ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, place(v)])),
      // Environment= lines come after EnvironmentFile= and win, as in systemd.
      ...Object.fromEntries(Object.entries(unit.environment).map(([k, v]) => [k, place(v)])),
    };
    expect(env).toMatchObject({ NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1' });
    const [binary, ...args] = unit.execStart.map(place) as [string, ...string[]];
    expect(binary).toBe(join(clone, 'bin/node'));
    server = spawnEntry(binary, args, env, place(unit.workingDirectory));
    await waitHealthy(server, port, 120_000);
  }, 180_000);

  afterAll(async () => {
    await server?.killGroup();
    await database?.drop();
  });

  const url = (path: string) => `http://127.0.0.1:${port}${path}`;

  it('runs on bin/node in production mode', () => {
    const proc = server as EntryProcess;
    expect(readlinkSync(`/proc/${proc.child.pid}/exe`)).toBe(realpathSync(join(clone, 'bin/node')));
    const listening = proc
      .stdout()
      .split('\n')
      .find((l) => l.includes('"msg":"listening"'));
    expect(listening, proc.output()).toBeDefined();
    // From the service bundle install.sh built (apps/auth/dist), not from the sources: the fast start
    // survives `npm prune` (src/boot/service-bundle.ts).
    expect(JSON.parse(listening as string)).toMatchObject({
      production: true,
      url: 'https://namaa.example',
      runs: 'bundle',
    });
  });

  it('serves the site it built, in both languages', async () => {
    for (const [path, file] of [
      ['/', 'index.html'],
      ['/ar/', 'ar/index.html'],
    ] as const) {
      const res = await fetch(url(path));
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await res.text(), path).toBe(readFileSync(join(clone, 'apps/web/build/client', file), 'utf8'));
    }
  });

  it('supabase-js: sign-up, then sign-in with the password', async () => {
    const sb = createClient(`http://127.0.0.1:${port}`, anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    const email = `install-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'Installed-copy-Pass-2071';
    const signUp = await sb.auth.signUp({ email, password });
    expect(signUp.error).toBeNull();
    expect(signUp.data.user?.email).toBe(email);
    const signIn = await sb.auth.signInWithPassword({ email, password });
    expect(signIn.error).toBeNull();
    expect(signIn.data.session?.access_token).toEqual(expect.any(String));
    const user = await sb.auth.getUser();
    expect(user.data.user?.email).toBe(email);
  });

  it("the unit's KillSignal (systemctl stop): exits 0, nothing of it left", async () => {
    const proc = server as EntryProcess;
    expect(killSignal).toBe('SIGTERM');
    proc.child.kill(killSignal);
    const exit = await proc.exited;
    expect(exit, proc.output()).toEqual({ code: 0, signal: null });
    expect(proc.groupAlive()).toBe(false);
  });
});
