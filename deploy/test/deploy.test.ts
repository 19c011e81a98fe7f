// Issue #25, "A deploy/ folder": deploy/nginx/namaa.conf with TLS (a self-signed certificate made
// here with openssl) in front of two instances of the real entry point (node apps/auth/src/main.ts,
// what the systemd unit starts) on one PostgreSQL database; supabase-js through the proxy; a rolling
// restart of both instances under load without a 502; the systemd unit checked by systemd-analyze.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EntryProcess,
  freePort,
  MAIN,
  repoRoot,
  serviceEnv,
  spawnEntry,
  tempDir,
  waitHealthy,
} from '../../apps/auth/test/support/entry-process.ts';
import { createFreshDatabase, type FreshDatabase } from '../../apps/auth/test/support/fresh-database.ts';

const deployDir = join(repoRoot, 'deploy');
const which = (cmd: string) =>
  spawnSync('sh', ['-c', `command -v ${cmd} || ls /usr/sbin/${cmd} 2>/dev/null`], {
    encoding: 'utf8',
  }).stdout.trim();

describe('systemd unit', () => {
  it('passes systemd-analyze verify (with this checkout and this node in its paths)', () => {
    const analyze = which('systemd-analyze');
    expect(analyze, 'systemd-analyze is missing: apt-get install systemd').not.toBe('');
    const dir = tempDir('namaa-unit-');
    try {
      const unit = readFileSync(join(deployDir, 'systemd/namaa@.service'), 'utf8')
        .replace('/opt/namaa/bin/node', process.execPath)
        .replaceAll('/opt/namaa', repoRoot.replace(/\/$/, ''));
      // An instance of the template, as `systemctl start namaa@3001` makes it.
      const path = join(dir.path, 'namaa@3001.service');
      writeFileSync(path, unit);
      const result = spawnSync(analyze, ['verify', path], { encoding: 'utf8' });
      // Any warning (an unknown directive, a bad value, a missing binary) is printed on stderr.
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    } finally {
      dir.remove();
    }
  });
});

describe('two instances behind nginx with TLS, on PostgreSQL', () => {
  const work = tempDir('namaa-deploy-');
  let database: FreshDatabase;
  let nginx: EntryProcess | undefined;
  const instances = new Map<number, EntryProcess>();
  let ports: { a: number; b: number; https: number; http: number };
  let nginxBin = '';

  const startInstance = (port: number) => {
    const proc = spawnEntry(
      process.execPath,
      [MAIN],
      serviceEnv(port, {
        DATABASE_URL: database.url,
        SITE_URL: `https://localhost:${ports.https}`,
        TRUST_PROXY: '127.0.0.1',
      }),
    );
    instances.set(port, proc);
    return proc;
  };

  const client = (mode: 'smoke' | 'load') =>
    spawnEntry(
      process.execPath,
      [join(deployDir, 'test/tls-client.ts'), mode, `https://localhost:${ports.https}`],
      {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_EXTRA_CA_CERTS: join(work.path, 'cert.pem'),
      },
    );

  beforeAll(async () => {
    nginxBin = which('nginx');
    if (!nginxBin) throw new Error('nginx is missing: apt-get install nginx (.ci/run does)');
    database = await createFreshDatabase(process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test');
    ports = { a: await freePort(), b: await freePort(), https: await freePort(), http: await freePort() };
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        join(work.path, 'key.pem'),
        '-out',
        join(work.path, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    // The example as shipped, with only its placeholders replaced: ports, names, certificate paths.
    const site = readFileSync(join(deployDir, 'nginx/namaa.conf'), 'utf8')
      .replace('127.0.0.1:3001', `127.0.0.1:${ports.a}`)
      .replace('127.0.0.1:3002', `127.0.0.1:${ports.b}`)
      .replaceAll('listen 443', `listen ${ports.https}`)
      .replaceAll('listen [::]:443', `listen [::1]:${ports.https}`)
      .replaceAll('listen 80;', `listen ${ports.http};`)
      .replaceAll('listen [::]:80;', `listen [::1]:${ports.http};`)
      .replaceAll('namaa.example', 'localhost')
      .replace('/etc/letsencrypt/live/localhost/fullchain.pem', join(work.path, 'cert.pem'))
      .replace('/etc/letsencrypt/live/localhost/privkey.pem', join(work.path, 'key.pem'));
    const directives = site.replaceAll(/^\s*#.*$/gm, '');
    expect(directives).not.toMatch(/\b(443|3001|3002)\b|letsencrypt/);
    writeFileSync(join(work.path, 'namaa.conf'), site);
    const tmp = (name: string) => join(work.path, name);
    writeFileSync(
      tmp('nginx.conf'),
      `worker_processes 1;
pid ${tmp('nginx.pid')};
error_log ${tmp('error.log')} warn;
daemon off;
events { worker_connections 512; }
http {
  access_log ${tmp('access.log')};
  client_body_temp_path ${tmp('body')};
  proxy_temp_path ${tmp('proxy')};
  fastcgi_temp_path ${tmp('fastcgi')};
  uwsgi_temp_path ${tmp('uwsgi')};
  scgi_temp_path ${tmp('scgi')};
  include ${tmp('namaa.conf')};
}
`,
    );
    const check = spawnSync(nginxBin, ['-t', '-p', work.path, '-c', tmp('nginx.conf')], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    nginx = spawnEntry(nginxBin, ['-p', work.path, '-c', tmp('nginx.conf')], {
      PATH: process.env.PATH ?? '',
    });
    // Together on an empty database: the migrations' advisory lock lets both come up.
    const a = startInstance(ports.a);
    const b = startInstance(ports.b);
    await Promise.all([waitHealthy(a, ports.a, 120_000), waitHealthy(b, ports.b, 120_000)]);
  });

  afterAll(async () => {
    await Promise.all([...instances.values()].map((p) => p.killGroup()));
    await nginx?.killGroup();
    await database?.drop();
    work.remove();
  });

  it('supabase-js through TLS: sign-up, sign-in, refresh, getUser', async () => {
    const smoke = client('smoke');
    const { code } = await smoke.exited;
    expect(code, smoke.output()).toBe(0);
    const result = JSON.parse(smoke.stdout().trim().split('\n').at(-1) as string);
    expect(result).toMatchObject({ signUp: true, signIn: true, refreshed: true, user: true });
    expect(Object.keys(result.answers).sort()).toEqual(['200']);
    // Plain http is sent to https; /metrics is not served through the public name.
    const redirect = await fetch(`http://127.0.0.1:${ports.http}/auth/v1/health`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('https://127.0.0.1/auth/v1/health');
  });

  it('a rolling restart of both instances during sign-ins, reads and refreshes answers no 502', async () => {
    const load = client('load');
    const progress = () => (load.stderr().match(/\./g) ?? []).length;
    const waitProgress = async (more: number) => {
      const target = progress() + more;
      const deadline = Date.now() + 120_000;
      while (progress() < target) {
        if (load.child.exitCode !== null) throw new Error(`load client exited:\n${load.output()}`);
        if (Date.now() > deadline) throw new Error(`load made no progress:\n${load.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitProgress(4);
    for (const port of [ports.a, ports.b]) {
      // What `systemctl restart namaa@<port>` does: SIGTERM, wait for the exit, start again.
      const old = instances.get(port) as EntryProcess;
      old.child.kill('SIGTERM');
      const exit = await old.exited;
      expect(exit.code, old.output()).toBe(0);
      await waitProgress(2); // the other instance carries the load meanwhile
      await waitHealthy(startInstance(port), port, 120_000);
      await waitProgress(4); // both again before the next one goes
    }
    load.child.kill('SIGTERM');
    const { code } = await load.exited;
    expect(code, load.output()).toBe(0);
    const result = JSON.parse(load.stdout().trim().split('\n').at(-1) as string) as {
      answers: Record<string, number>;
      failures: string[];
      failureCount: number;
    };
    const errors = readFileSync(join(work.path, 'error.log'), 'utf8');
    expect(result.failures, `nginx error.log:\n${errors}`).toEqual([]);
    expect(Object.keys(result.answers).sort()).toEqual(['200']);
    expect(result.answers['200']).toBeGreaterThan(30);
    // Every answer came through nginx to one of the instances: both served after their restart.
    const log = readFileSync(join(work.path, 'access.log'), 'utf8');
    expect(log).not.toMatch(/" 50[234] /);
  });
});
