// The retention rules of a serving agent (how long ended tasks are kept, how long a question
// waits for its answer, how many tasks are kept at most), as the store remembers them, the
// runtime applies them and the card declares them; and the durations they are written in.

/** What an agent keeps, and for how long. A rule left out does not apply. */
export interface RetentionRules {
  /** An ended task (completed, failed, cancelled, rejected) is deleted once its status is this old. */
  taskTtlMs?: number;
  /** A task waiting this long in input-required or auth-required ends as failed. */
  inputTimeoutMs?: number;
  /**
   * The most tasks kept: a new task beyond it first deletes the oldest ended task, and is refused
   * (STORE_FULL) when none has ended.
   */
  maxTasks?: number;
}

const UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
] as const;

/** Whole numbers, each with a unit, largest first and each unit once; weeks are read too. */
const DURATION = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/;
const FACTORS = [604_800_000, ...UNITS.map(([, ms]) => ms)];

/**
 * The milliseconds of a duration such as `90s`, `15m`, `1h30m`, `7d` or `2w` (units w, d, h, m,
 * s, ms), or undefined when `text` is not one.
 *
 * @example
 * parseDuration('1h30m') // 5_400_000
 * parseDuration('90')    // undefined: a number needs its unit
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null || match.slice(1).every((part) => part === undefined)) return undefined;
  let ms = 0;
  for (const [i, factor] of FACTORS.entries()) ms += Number(match[i + 1] ?? 0) * factor;
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/**
 * A duration as `parseDuration` reads it back, in days, hours, minutes, seconds and
 * milliseconds: 5_400_000 is `1h30m`, 0 is `0s`.
 */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms));
  let text = '';
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) text += `${count}${unit}`;
  }
  return text === '' ? '0s' : text;
}
