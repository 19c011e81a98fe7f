// What `npm test` (scripts/run-tests.mjs with scripts/failure-reporter.mjs) prints when tests fail:
// CI is read from its tail, so every kind of failure must be named there and counted. Runs the real
// runner on a fixture suite that fails in each way: a failed assertion, a beforeAll that throws (its
// tests are only "skipped" in Vitest's own counts), a file that does not load, and an unhandled
// rejection in a test that passed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const runner = fileURLToPath(new URL('../run-tests.mjs', import.meta.url));
const config = fileURLToPath(new URL('./fixtures/failures/vitest.config.ts', import.meta.url));

it('names every failure in the last lines and counts each one', () => {
  const run = spawnSync(process.execPath, [runner, '--config', config, '--project', 'failures'], {
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', FORCE_COLOR: '0' },
  });
  expect(run.status).toBe(1);
  const lines = run.stdout.trim().split('\n');
  const tail = lines.slice(lines.findIndex((line) => line.startsWith('FAILED: ')));
  const failed = tail.filter((line) => line.startsWith('FAILED: ')).sort();
  expect(failed).toEqual([
    expect.stringMatching(/^FAILED: \S*broken\.check\.ts: .*does-not-exist/),
    expect.stringMatching(/^FAILED: \S*fails\.check\.ts › adds wrongly: AssertionError: expected 2 to be 3/),
    expect.stringMatching(/^FAILED: \S*hook\.check\.ts › behind a broken hook: the hook broke$/),
    'FAILED: unhandled error: a stray rejection',
  ]);
  // The count comes last: two tests passed, and the four failures count though only one is a test.
  expect(tail.at(-1)).toMatch(/^2 passed, 4 failed\b/);
});
