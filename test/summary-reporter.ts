// Ends a test run with one plain line, "N passed, N failed, N skipped", that any CI can read.
// Failed counts every failed test, and also each test file that failed to load, each hook that
// threw (the tests it guarded never ran) and each unhandled error; a line above the count names
// each failure, and each suite skipped for want of a tool (needs-tool.ts) with the reason.
import { relative } from 'node:path';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** The first line of an error's message (two when the first only leads in), plain and short. */
function firstLine(error: { message?: string }): string {
  const lines = (error.message ?? 'unknown error').replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((text) => text.trim()).filter((text) => text !== '');
  const line = lines[0]?.endsWith(':') ? lines.slice(0, 2).join(' ') : (lines[0] ?? 'unknown error');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    const lines: string[] = [];
    for (const module of testModules) {
      const file = relative(module.project.config.root, module.moduleId);
      for (const test of module.children.allTests()) {
        const result = test.result();
        counts[result.state] += 1;
        if (result.state === 'failed') lines.push(`failed: ${file} > ${test.fullName} — ${firstLine(result.errors[0] ?? {})}`);
        const missing = test.meta().missingTool;
        if (missing !== undefined) lines.push(`skipped: ${missing.suite} — ${missing.reason}`);
      }
      // A file that did not load, or whose own beforeAll/afterAll threw.
      for (const error of module.errors()) {
        counts.failed += 1;
        lines.push(`failed: ${file} — ${firstLine(error)}`);
      }
      for (const suite of module.children.allSuites()) {
        for (const error of suite.errors()) {
          counts.failed += 1;
          lines.push(`failed: ${file} > ${suite.fullName} — ${firstLine(error)}`);
        }
      }
    }
    for (const error of unhandledErrors) {
      counts.failed += 1;
      lines.push(`failed: an unhandled error — ${firstLine(error)}`);
    }
    const summary = `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
    process.stdout.write(`\n${[...lines, summary].join('\n')}\n`);
  }
}
