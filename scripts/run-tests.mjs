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

Runs the auth, web, e2e, deploy and tooling suites (the fault suite only with --project faults) and ends with
"N passed, N failed". Other arguments go to \`vitest run\`, e.g. --project auth, a test file, -t name.
  npm run test:service   the auth suites (DATABASE_URL=postgres://… for PostgreSQL)
  npm run test:faults    the fault suite`);
  process.exit(0);
}
const defaultProjects = ['auth', 'web', 'e2e', 'deploy', 'tooling'];
const projectArgs = args.includes('--project') ? [] : defaultProjects.flatMap((p) => ['--project', p]);
mkdirSync(join(root, '.cache'), { recursive: true });
const report = join(root, '.cache', `vitest-report-${process.pid}.json`);
const failureReport = join(root, '.cache', `vitest-failures-${process.pid}.txt`);

const child = spawn(
  process.execPath,
  [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--reporter=${join(root, 'scripts/failure-reporter.mjs')}`,
    `--outputFile.json=${report}`,
    ...projectArgs,
    ...args,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FAILURE_REPORT: failureReport } },
);

/**
 * Where the run's minutes went: each project's files, their summed time and the span from its first
 * file's start to its last file's end, then the slowest files. CI has a budget (45 min on a 2-core
 * machine); this is what to read when a run nears it.
 */
function printTimings(files) {
  const projectOf = (name) => {
    const rel = name.startsWith(root) ? name.slice(root.length) : name;
    if (rel.startsWith('e2e/')) return 'e2e';
    if (rel.startsWith('deploy/')) return 'deploy';
    if (rel.startsWith('apps/web/')) return 'web';
    if (rel.startsWith('apps/auth/test/faults/')) return 'faults';
    if (rel.startsWith('scripts/')) return 'tooling';
    return 'auth';
  };
  const rows = files
    .filter((f) => Number.isFinite(f.startTime) && Number.isFinite(f.endTime))
    .map((f) => ({
      name: f.name.startsWith(root) ? f.name.slice(root.length) : f.name,
      project: projectOf(f.name),
      start: f.startTime,
      end: f.endTime,
    }));
  if (rows.length === 0) return;
  const seconds = (ms) => `${Math.round(ms / 1000)} s`;
  console.log('\nTimings (per project: files, summed file time, first start to last end):');
  for (const project of [...new Set(rows.map((r) => r.project))].sort()) {
    const mine = rows.filter((r) => r.project === project);
    const sum = mine.reduce((t, r) => t + (r.end - r.start), 0);
    const span = Math.max(...mine.map((r) => r.end)) - Math.min(...mine.map((r) => r.start));
    console.log(`  ${project}: ${mine.length} files, ${seconds(sum)} summed, ${seconds(span)} span`);
  }
  console.log('Slowest files:');
  for (const r of [...rows].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, 12))
    console.log(`  ${seconds(r.end - r.start).padStart(6)}  ${r.name}`);
}

child.on('exit', (code, signal) => {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let failures = [];
  try {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed = result.numPassedTests;
    failed = result.numFailedTests;
    skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
    // A file that failed to load (syntax error) or whose beforeAll/afterAll threw has no failed
    // *test* (its tests are skipped), but it is a failure.
    failed += result.testResults.filter(
      (s) => s.status === 'failed' && !s.assertionResults.some((t) => t.status === 'failed'),
    ).length;
    printTimings(result.testResults);
    rmSync(report, { force: true });
  } catch {
    failed = Math.max(failed, 1);
  }
  try {
    failures = readFileSync(failureReport, 'utf8').split('\n').filter(Boolean);
    rmSync(failureReport, { force: true });
  } catch {}
  // Hook, load and unhandled errors are failures too, beside the failed tests the JSON counts.
  failed = Math.max(failed, failures.length);
  if ((code !== 0 || signal) && failed === 0) {
    failed = 1;
    if (failures.length === 0)
      failures.push(
        `vitest exited with ${signal ?? `code ${code}`} and no failed test: an unhandled error (see "Unhandled" above) or a crash`,
      );
  }
  // Repeated at the very end, prefixed, so that a log read from its tail (CI's is) names what failed;
  // .ci/run gathers these lines from every suite into its last lines.
  for (const line of failures) console.log(`FAILED: ${line}`);
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 ? 1 : 0);
});
