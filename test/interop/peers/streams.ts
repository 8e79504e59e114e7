// The HTTP side of a peer that the SDK hides: which response belongs to which request, and
// cutting SSE responses mid-stream (all at once, or one right after a chosen event).
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The SDK's `User` for every request (both versions read `isAuthenticated` and `userName`).
 * It carries the request so an executor, which sees only the SDK's call context, can find
 * the response that streams its events.
 */
export class PeerUser {
  constructor(
    readonly request: IncomingMessage,
    readonly isAuthenticated: boolean,
  ) {}

  /** One name for everyone: the 1.x SDK scopes its stores by user name, and tasks must be shared. */
  get userName(): string {
    return '';
  }
}

const isEventStream = (res: ServerResponse) => String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');

export class PeerStreams {
  private readonly open = new Set<ServerResponse>();
  private readonly responses = new WeakMap<IncomingMessage, ServerResponse>();
  private readonly cuts = new WeakMap<ServerResponse, string>();

  /** Middleware placed before the SDK's handlers: remembers each response and watches its writes. */
  readonly watch: Middleware = (req, res, next) => {
    this.responses.set(req, res);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const write = res.write;
    res.write = ((...args: unknown[]) => {
      const marker = this.cuts.get(res);
      if (marker === undefined || !isEventStream(res) || !String(args[0]).includes(marker)) {
        return Reflect.apply(write, res, args) as boolean;
      }
      this.cuts.delete(res);
      // Node corks the socket for the current tick, so destroying it now would drop the event;
      // the write callback runs once the event is on the wire.
      return Reflect.apply(write, res, [args[0], () => res.socket?.destroy()]) as boolean;
    }) as ServerResponse['write'];
    next();
  };

  /** Destroys the response to `request` right after it writes an SSE event containing `marker`; a JSON answer is left alone. */
  cutAfter(request: IncomingMessage, marker: string): void {
    const res = this.responses.get(request);
    if (res !== undefined) this.cuts.set(res, marker);
  }

  /** Destroys the socket of every SSE response now open; the tasks behind them go on. */
  cutAll(): void {
    for (const res of this.open) if (isEventStream(res)) res.socket?.destroy();
  }
}
