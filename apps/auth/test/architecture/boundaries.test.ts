// The layer and capability boundaries of the service (apps/auth/biome.json) hold in the linter: a
// feature reaches another feature only through its index.ts, and core/, db/ and crypto/ never
// import a feature. Probe files are written into the real folders (the rule is chosen by the file's
// path) and linted with the project's own Biome, as `npm run lint` does; each is removed right after
// its lint run (a lint of the tree started meanwhile would see it).
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../../../..');
const src = join(repo, 'apps/auth/src');
const biome = join(repo, 'node_modules/@biomejs/biome/bin/biome');

type Probe = { folder: string; from: string; allowed: boolean };

const probes: Probe[] = [
  // A feature uses a neighbour through its index.ts, and core/, db/, the ground and itself freely.
  { folder: 'features/email-links', from: '../user/index.ts', allowed: true },
  { folder: 'features/user', from: '../mfa/index.ts', allowed: true },
  { folder: 'features/email-links', from: './verify.ts', allowed: true },
  { folder: 'features/session', from: '../../core/issue-session.ts', allowed: true },
  { folder: 'features/session', from: '../../db/sessions.repo.ts', allowed: true },
  { folder: 'features/session', from: '../../errors.ts', allowed: true },
  { folder: 'core', from: '../db/client.ts', allowed: true },
  { folder: 'core/http', from: '../deps.ts', allowed: true },
  { folder: 'db', from: '../crypto/tokens.ts', allowed: true },
  { folder: 'db', from: '../config.ts', allowed: true },
  // Another feature's internals, however the path is spelled.
  { folder: 'features/email-links', from: '../user/email-change.ts', allowed: false },
  { folder: 'features/session', from: '../signup/signup.ts', allowed: false },
  { folder: 'features/user', from: '../../features/mfa/factors.ts', allowed: false },
  { folder: 'features/user', from: '../mfa/sub/deep.ts', allowed: false },
  { folder: 'features/signup', from: '../../app.ts', allowed: false },
  // Lower layers never reach up.
  { folder: 'core', from: '../features/user/user-update.ts', allowed: false },
  { folder: 'core/http', from: '../../features/user/index.ts', allowed: false },
  { folder: 'db', from: '../features/signup/signup.ts', allowed: false },
  { folder: 'db', from: '../core/rate-limit.ts', allowed: false },
  { folder: 'crypto', from: '../db/client.ts', allowed: false },
  // The ground (config.ts, errors.ts, logger.ts, …) sits under everything but storage helpers.
  { folder: '.', from: './features/user/index.ts', allowed: false },
  { folder: '.', from: './core/deps.ts', allowed: false },
  { folder: '.', from: './app.ts', allowed: false },
  { folder: '.', from: './config.ts', allowed: true },
  { folder: '.', from: './db/error-summary.ts', allowed: true },
];

/** Writes one file per probe, lints them, and removes them again whatever happens. */
function lintProbes(list: Probe[]): { status: number | null; diagnostics: Diagnostic[]; files: string[] } {
  const files = list.map((p, i) => join(src, p.folder, `boundary-probe-${process.pid}-${i}.ts`));
  try {
    list.forEach((p, i) => {
      writeFileSync(files[i] as string, `import { probe } from '${p.from}';\n\nexport const used = probe;\n`);
    });
    return { ...lint(files), files };
  } finally {
    for (const file of files) rmSync(file, { force: true });
  }
}

type Diagnostic = { category: string; location: { path: string } };

function lint(files: string[]): { status: number | null; diagnostics: Diagnostic[] } {
  const run = spawnSync(
    process.execPath,
    [biome, 'lint', '--reporter=json', ...files.map((f) => relative(repo, f))],
    { cwd: repo, encoding: 'utf8', timeout: 60_000 },
  );
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  return { status: run.status, diagnostics: report.diagnostics };
}

describe('service boundaries (apps/auth/biome.json)', () => {
  it('refuses every forbidden import and lets every allowed one through', () => {
    const { diagnostics, files } = lintProbes(probes);
    const refused = new Set(
      diagnostics
        .filter((d) => d.category === 'lint/style/noRestrictedImports')
        .map((d) => join(repo, d.location.path)),
    );
    const verdicts = probes.map((p, i) => ({
      ...p,
      refused: refused.has(files[i] as string),
    }));
    expect(verdicts.filter((v) => v.refused === v.allowed)).toEqual([]);
  });

  it('fails the lint run (exit code 1) on a feature that imports another feature’s internals', () => {
    const { status } = lintProbes([
      { folder: 'features/session', from: '../signup/signup.ts', allowed: false },
    ]);
    expect(status).toBe(1);
  });

  it('passes on the real tree', () => {
    const { status, diagnostics } = lint([src]);
    expect(diagnostics.filter((d) => d.category === 'lint/style/noRestrictedImports')).toEqual([]);
    expect(status).toBe(0);
  });
});
