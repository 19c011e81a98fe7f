// A Vitest reporter that writes one line per failure to the file named by FAILURE_REPORT: a failed
// test with the first line of its error, a file or describe block whose beforeAll/afterAll threw or
// that did not load, and errors no test caught. The JSON report names failed tests but not hook
// errors (their tests are just "skipped"), and CI shows only the tail of a long log:
// scripts/run-tests.mjs prints these lines last.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const firstLine = (error) =>
  `${error?.name && error.name !== 'Error' ? `${error.name}: ` : ''}${error?.message ?? String(error)}`
    .split('\n')[0]
    .slice(0, 300);

export default class FailureReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const lines = [];
    for (const module of testModules) {
      const file = relative(process.cwd(), module.moduleId);
      for (const error of module.errors()) lines.push(`${file}: ${firstLine(error)}`);
      for (const suite of module.children.allSuites())
        for (const error of suite.errors()) lines.push(`${file} › ${suite.fullName}: ${firstLine(error)}`);
      for (const test of module.children.allTests('failed'))
        lines.push(`${file} › ${test.fullName}: ${firstLine(test.result().errors?.[0])}`);
    }
    for (const error of unhandledErrors) lines.push(`unhandled error: ${firstLine(error)}`);
    if (process.env.FAILURE_REPORT) writeFileSync(process.env.FAILURE_REPORT, lines.join('\n'));
  }
}
