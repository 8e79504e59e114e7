// An AbortController made on first use of its signal. Every task has one for its handler's
// `ctx.signal`, and most handlers never look at it; making a controller and its signal for each
// task is a measurable part of a short request.

export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  /** The signal, aborted already (with the first reason) if `abort` was called before. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** As AbortController.abort: the first reason wins and later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.controller !== undefined) {
      this.controller.abort(reason);
    } else if (!this.aborted) {
      this.aborted = true;
      this.reason = reason;
    }
  }
}
