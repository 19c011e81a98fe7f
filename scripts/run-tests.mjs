#!/usr/bin/env node
// Runs the Vitest projects (auth, web, e2e, faults…) and ends with the line the CI contract asks
// for: "N passed, N failed". Arguments are passed to `vitest run` (for example `--project auth`).
// Without a --project argument every project except the opt-in ones (faults) runs.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(`Usage: npm test [-- vitest options]   (node scripts/run-tests.mjs)

Runs the auth, web, e2e and deploy suites (the fault suite only with --project faults) and ends with
"N passed, N failed". Other arguments go to \`vitest run\`, e.g. --project auth, a test file, -t name.
  npm run test:service   the auth suites (DATABASE_URL=postgres://… for PostgreSQL)
  npm run test:faults    the fault suite`);
  process.exit(0);
}
const defaultProjects = ['auth', 'web', 'e2e', 'deploy'];
const projectArgs = args.includes('--project') ? [] : defaultProjects.flatMap((p) => ['--project', p]);
mkdirSync(join(root, '.cache'), { recursive: true });
const report = join(root, '.cache', `vitest-report-${process.pid}.json`);

const child = spawn(
  process.execPath,
  [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...projectArgs,
    ...args,
  ],
  { cwd: root, stdio: 'inherit', env: process.env },
);

child.on('exit', (code, signal) => {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  try {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed = result.numPassedTests;
    failed = result.numFailedTests;
    skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
    // A suite that failed to load (syntax error, failing beforeAll) has no failed *test*, but it is a failure.
    failed += result.testResults.filter(
      (s) => s.status === 'failed' && s.assertionResults.length === 0,
    ).length;
    rmSync(report, { force: true });
  } catch {
    failed = Math.max(failed, 1);
  }
  if ((code !== 0 || signal) && failed === 0) failed = 1;
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 ? 1 : 0);
});
