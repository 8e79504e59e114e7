// The events of a run as an async iterable, for code that would rather loop over them than pass
// a listener: `for await (const event of run.events)`, then `await run.result`.

import type { RunEvent } from './events.js';
import type { Plan } from './plan.js';
import { runPlan, type RunOptions, type RunResult } from './run-plan.js';

export interface RunningPlan {
  /** Every event of the run, in order, ending when the run ends (or fails to start). */
  events: AsyncIterable<RunEvent>;
  /** The run's end; rejects as `runPlan` does (a bad plan: INVALID_PLAN, before anything is sent). */
  result: Promise<RunResult>;
}

/**
 * Starts `plan` and gives its events as they come.
 *
 * @example
 * const running = startPlan(plan, { stores, root, env: process.env });
 * for await (const event of running.events) if (event.type === 'step') console.log(event.key, event.state);
 * const { run } = await running.result;
 */
export function startPlan(plan: Plan | unknown, options: Omit<RunOptions, 'onEvent'>): RunningPlan {
  const queue: RunEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const result = runPlan(plan, {
    ...options,
    onEvent: (event) => {
      queue.push(event);
      wake?.();
    },
  });
  const finish = (): void => {
    done = true;
    wake?.();
  };
  result.then(finish, finish);
  // The result's rejection is the caller's to see through `result`; the loop just ends.
  result.catch(() => undefined);
  async function* events(): AsyncGenerator<RunEvent> {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (done) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
  return { events: events(), result };
}
