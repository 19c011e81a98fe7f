// Issue #25: the Docker image is built by the same install script as a machine install and starts the
// server exactly as the systemd unit does. No Docker daemon runs here or in CI, so this reads the
// Dockerfile against the unit: install.test.ts runs that script and that start for real.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../apps/auth/test/support/entry-process.ts';
import { readDockerfile, readServiceUnit } from './deploy-files.ts';

describe('deploy/Dockerfile against the systemd unit', () => {
  const docker = readDockerfile();
  const unit = readServiceUnit('3000');

  it('installs with deploy/install.sh on a Node ≥ 22.22 base', () => {
    expect(docker.run.some((r) => /^deploy\/install\.sh(\s|$)/.test(r))).toBe(true);
    // The image's Node is what install.sh links as bin/node (it downloads none when Node is ≥ 22.22;
    // a bare major tag is that major's latest release).
    const major = Number(/^node:(\d+)-/.exec(docker.from)?.[1]);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it('starts the same binary, flags and entry point, from the same directory', () => {
    expect(docker.workdir).toBe(unit.workingDirectory);
    const [binary, ...args] = unit.execStart;
    // The unit names bin/node by its absolute path under WorkingDirectory; CMD runs from WORKDIR.
    expect(binary?.startsWith(`${unit.workingDirectory}/`)).toBe(true);
    const relative = (binary as string).slice(unit.workingDirectory.length + 1);
    expect(docker.cmd).toEqual([relative, ...args]);
    expect(docker.stopSignal).toBe(unit.killSignal);
  });

  it('runs with the unit environment (but for what the container itself decides)', () => {
    // PORT and HOST: the container listens on every interface of its own network on one port (the
    // unit's instance is its port, on loopback behind nginx). NODE_COMPILE_CACHE: the unit points it
    // at systemd's CacheDirectory; in a container the default (the temporary directory) is its own.
    const own = new Set(['PORT', 'HOST', 'NODE_COMPILE_CACHE']);
    const shared = Object.fromEntries(Object.entries(unit.environment).filter(([k]) => !own.has(k)));
    expect(shared).toMatchObject({ NODE_ENV: 'production', MALLOC_ARENA_MAX: expect.any(String) });
    for (const [key, value] of Object.entries(shared)) expect(docker.env[key], key).toBe(value);
  });

  it('keeps a checkout’s secrets and state out of the build context', () => {
    // `COPY . .` takes the directory the image is built from, which may be a working checkout: its
    // .env (read at start, filling any setting the container leaves unset) and its databases must
    // not end up in an image layer.
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'data', 'apps/*/data', 'node_modules', '.git'])
      expect(ignored, entry).toContain(entry);
  });
});
