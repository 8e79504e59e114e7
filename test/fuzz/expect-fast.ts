// Checks for the fuzz targets' hot loops: plain comparisons, with vitest's `expect` called only
// on a failure, for its message. A hundred thousand `expect` chains would cost more than the
// code under test.
import { expect } from 'vitest';

/** Fails unless `actual` and `expected` serialize to the same JSON (key order included). */
export function expectSame(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

/** Fails with `why` (and the value concerned) when `ok` is false. */
export function check(ok: boolean, why: string, value?: unknown): void {
  if (!ok) expect.fail(value === undefined ? why : `${why}: ${JSON.stringify(value)?.slice(0, 500)}`);
}
