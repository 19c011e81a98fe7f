// The service's built bundle (src/boot/service-bundle.ts, scripts/build-service.ts): main.ts runs it
// only when it was built from exactly the sources present, and the bundle is the same service: a
// real build started through the real entry point serves, creates its database, renders mail and
// signs up; its first start fills the compile cache in a child (boot/prime-compile-cache.ts), a
// restart does not; a bundle built from other sources is never run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_ENTRY,
  type BundleInputs,
  chooseEntry,
  FINGERPRINT_FILE,
  sourceFingerprint,
} from '../../src/boot/service-bundle.ts';
import {
  ANON_KEY,
  freePort,
  MAIN,
  repoRoot,
  serviceEnv,
  spawnEntry,
  tempDir,
  waitHealthy,
} from '../support/entry-process.ts';

const dirs: Array<{ remove(): void }> = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

/** A small source tree, lock file and build script, as the fingerprint reads them. */
function fakeInputs(): BundleInputs & { root: string } {
  const t = tempDir('namaa-bundle-inputs-');
  dirs.push(t);
  mkdirSync(join(t.path, 'src/db'), { recursive: true });
  writeFileSync(join(t.path, 'src/main.ts'), 'export const a = 1;\n');
  writeFileSync(join(t.path, 'src/db/repo.ts'), 'export const b = 2;\n');
  writeFileSync(join(t.path, 'package-lock.json'), '{"lockfileVersion":3}\n');
  writeFileSync(join(t.path, 'build.ts'), '// build\n');
  return {
    root: t.path,
    sourceDir: join(t.path, 'src'),
    lockFile: join(t.path, 'package-lock.json'),
    buildScript: join(t.path, 'build.ts'),
  };
}

describe('the fingerprint of the sources', () => {
  it('changes with any source, the dependency set or the build script, and only then', () => {
    const inputs = fakeInputs();
    const first = sourceFingerprint(inputs);
    expect(sourceFingerprint(inputs)).toBe(first);
    const changes: Array<[string, () => void]> = [
      ['a file edited', () => writeFileSync(join(inputs.sourceDir, 'db/repo.ts'), 'export const b = 3;\n')],
      ['a file added', () => writeFileSync(join(inputs.sourceDir, 'db/new.ts'), '')],
      ['a file removed', () => rmSync(join(inputs.sourceDir, 'db/new.ts'))],
      [
        'a file renamed',
        () => renameSync(join(inputs.sourceDir, 'main.ts'), join(inputs.sourceDir, 'entry.ts')),
      ],
      ['the lock file', () => writeFileSync(inputs.lockFile, '{"lockfileVersion":3,"x":1}\n')],
      ['the build script', () => writeFileSync(inputs.buildScript, '// build, changed\n')],
    ];
    let before = first;
    for (const [what, change] of changes) {
      change();
      const now = sourceFingerprint(inputs);
      expect(now, what).not.toBe(before);
      before = now;
    }
    // Back to the first tree: the first fingerprint (it depends on the contents, not on times).
    rmSync(join(inputs.sourceDir, 'entry.ts'));
    writeFileSync(join(inputs.sourceDir, 'main.ts'), 'export const a = 1;\n');
    writeFileSync(join(inputs.sourceDir, 'db/repo.ts'), 'export const b = 2;\n');
    writeFileSync(inputs.lockFile, '{"lockfileVersion":3}\n');
    writeFileSync(inputs.buildScript, '// build\n');
    expect(sourceFingerprint(inputs)).toBe(first);
  });

  it('is the same for the same tree elsewhere (a moved checkout keeps its bundle)', () => {
    // fakeInputs writes the same files into a new temporary directory each time.
    expect(sourceFingerprint(fakeInputs())).toBe(sourceFingerprint(fakeInputs()));
  });
});

describe('which code main.ts runs', () => {
  function fakeBundle(fingerprint: string | null): string {
    const t = tempDir('namaa-bundle-');
    dirs.push(t);
    writeFileSync(join(t.path, BUNDLE_ENTRY), 'export {};\n');
    if (fingerprint !== null) writeFileSync(join(t.path, FINGERPRINT_FILE), fingerprint);
    return t.path;
  }

  it('the bundle built from these sources; the sources when it is off, missing, stale or unreadable', () => {
    const inputs = fakeInputs();
    const fresh = fakeBundle(JSON.stringify({ fingerprint: sourceFingerprint(inputs) }));
    const choice = chooseEntry({ SERVICE_BUNDLE: fresh }, inputs);
    expect(choice).toMatchObject({ kind: 'bundle', dir: fresh, fingerprint: sourceFingerprint(inputs) });
    expect(choice.kind === 'bundle' && choice.url.endsWith(`/${BUNDLE_ENTRY}`)).toBe(true);

    expect(chooseEntry({ SERVICE_BUNDLE: 'off' }, inputs)).toMatchObject({ kind: 'source', reason: 'off' });
    const empty = tempDir('namaa-bundle-empty-');
    dirs.push(empty);
    expect(chooseEntry({ SERVICE_BUNDLE: empty.path }, inputs)).toMatchObject({
      kind: 'source',
      reason: 'missing',
    });
    expect(chooseEntry({ SERVICE_BUNDLE: fakeBundle(null) }, inputs)).toMatchObject({
      kind: 'source',
      reason: 'missing',
    });
    expect(chooseEntry({ SERVICE_BUNDLE: fakeBundle('{not json') }, inputs)).toMatchObject({
      kind: 'source',
      reason: 'unreadable',
    });
    // Built, then a source changed (a pull or an edit without a rebuild).
    writeFileSync(join(inputs.sourceDir, 'main.ts'), 'export const a = 2;\n');
    expect(chooseEntry({ SERVICE_BUNDLE: fresh }, inputs)).toMatchObject({ kind: 'source', reason: 'stale' });
  });
});

describe('the built bundle, through the real entry point', () => {
  // Inside the checkout, as apps/auth/dist is: the bundle finds the packages left outside it
  // (PGlite, argon2, pino) in the checkout's node_modules. (Ignored by git: /apps/auth/dist.*/.)
  const bundle = join(repoRoot, `apps/auth/dist.test-${process.pid}`);
  const data = tempDir('namaa-bundle-data-');
  const cache = tempDir('namaa-bundle-cache-');
  dirs.push(data, cache, { remove: () => rmSync(bundle, { recursive: true, force: true }) });
  const primeMarkers = () =>
    readdirSync(cache.path, { recursive: true }).filter((f) => String(f).includes('namaa-primed-'));

  function listeningLine(output: string): Record<string, unknown> {
    const line = output.split('\n').find((l) => l.includes('"msg":"listening"'));
    expect(line, output).toBeDefined();
    return JSON.parse(line as string);
  }

  async function start(port: number) {
    const proc = spawnEntry(
      process.execPath,
      [MAIN],
      serviceEnv(port, {
        SERVICE_BUNDLE: bundle,
        DATA_DIR: data.path, // a new embedded database: created in the child script beside the sources
        LOG_LEVEL: 'info',
        MAILER_AUTOCONFIRM: 'false',
        // Not the committed designs' lifetime: the designs are rendered at start-up (React Email,
        // imported on first use from its own chunk).
        MAILER_OTP_EXP: '1800',
        NODE_COMPILE_CACHE: cache.path, // empty: the first start primes it (boot/prime-compile-cache.ts)
      }),
    );
    await waitHealthy(proc, port, 90_000);
    return proc;
  }

  it('serves as the sources do, and a bundle from other sources is not run', async () => {
    const build = spawnSync(
      process.execPath,
      [join(repoRoot, 'apps/auth/scripts/build-service.ts'), '--out', bundle],
      {
        encoding: 'utf8',
      },
    );
    expect(build.status, build.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(bundle, FINGERPRINT_FILE), 'utf8')).fingerprint).toBe(
      sourceFingerprint(),
    );

    const port = await freePort();
    const api = `http://127.0.0.1:${port}/auth/v1`;
    const headers = { apikey: ANON_KEY, 'content-type': 'application/json' };
    const email = 'bundle@example.com';
    const password = 'correct horse battery staple 7';
    let proc = await start(port);
    try {
      expect(listeningLine(proc.stdout())).toMatchObject({ runs: 'bundle', compileCachePrimed: true });
      expect(primeMarkers()).toHaveLength(1);
      const signup = await fetch(`${api}/signup`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email, password }),
      });
      expect(signup.status).toBe(200);
      // The confirmation mail, rendered by the bundled templates with the 30-minute designs.
      const box = (await (await fetch(`${api}/_dev/mailbox.json?to=${email}`)).json()) as Array<{
        text: string;
      }>;
      expect(box).toHaveLength(1);
      expect(box[0]?.text).toMatch(/30 minutes/);
      proc.child.kill('SIGTERM');
      expect((await proc.exited).code).toBe(0);

      // A restart finds the cache primed for this bundle: no child this time.
      proc = await start(port);
      expect(listeningLine(proc.stdout()).runs).toBe('bundle');
      expect(listeningLine(proc.stdout())).not.toHaveProperty('compileCachePrimed');
      expect(primeMarkers()).toHaveLength(1);
      proc.child.kill('SIGTERM');
      expect((await proc.exited).code).toBe(0);

      // The same bundle, its fingerprint no longer that of the sources: the sources run, and say why.
      writeFileSync(
        join(bundle, FINGERPRINT_FILE),
        JSON.stringify({ fingerprint: 'built-from-other-sources' }),
      );
      proc = await start(port);
      expect(listeningLine(proc.stdout()).runs).toBe('source (stale)');
      expect(proc.stdout()).toMatch(/the built service bundle does not match the sources/);
      const resend = await fetch(`${api}/resend`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'signup', email }),
      });
      expect(resend.status).toBe(200);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      await proc.killGroup();
    }
  }, 180_000);
});
