// The context manager the SDK is registered with: the active context is set for the synchronous
// run of `context.with` and nothing more, so it needs no async hooks and costs no promise of the
// process anything. A context is not carried across `await`: code passes its parents (spans.ts).

import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

export class SyncContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const before = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = before;
    }
  }

  /** `target` run in `context` when it is a function; anything else as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = target as unknown as (...args: unknown[]) => unknown;
    const within = this.with.bind(this);
    return function bound(this: unknown, ...args: unknown[]) {
      return within(context, run, this, ...args);
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}
