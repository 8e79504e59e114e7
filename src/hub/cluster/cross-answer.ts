// The other side of cross-request.ts: requests other instances send for the agents whose links
// this instance holds are relayed down those links, and each answer goes back on the bus as it
// comes (a stream event by event). An abort from the asking instance (its client went away) is
// passed down the link as the client's own going away would be. The reply that says a request
// was taken waits up to HOLD_MS for its answer and carries it when it is whole and small: most
// requests then cross the bus in two messages, not three.

import type { Bus } from '../../cluster/bus.js';
import { statusError } from '../../a2a/server/http.js';
import type { HttpRequest, HttpResponse } from '../../net/http-types.js';
import { LiteError } from '../../errors.js';
import type { TaskSeen } from '../hub-events.js';
import type { Relay } from '../relay.js';
import { answersFor, atInstance, moreFor, parts, PART_CHARS, record, stringMap, strings, type AnswerFrame, type OpenRequest } from './messages.js';

export interface CrossAnswerOptions {
  bus: Bus;
  self: string;
  relay: Relay;
  /** The tasks `principal` sent through this instance (for another instance's list). */
  tasks: (principal: string, agentId?: string) => TaskSeen[];
  onError: (error: unknown, where: string) => void;
}

/** How long the reply saying a request was taken waits for the answer to carry. */
const HOLD_MS = 200;

/** A request taken from another instance. */
interface Taken {
  open: OpenRequest;
  pieces: string[];
  gone: (() => void)[];
  aborted: boolean;
  /** While the reply that it was taken is held: sends it, with the answer when given. */
  reply?: (frame?: AnswerFrame) => void;
}

export class CrossAnswers {
  private readonly taken = new Map<string, Taken>();
  private readonly ends: (() => void)[] = [];

  constructor(private readonly options: CrossAnswerOptions) {}

  /** Answers on the bus; resolves once it does. */
  async start(): Promise<void> {
    const { bus, self } = this.options;
    this.ends.push(await bus.respond(atInstance(self), (message) => this.asked(message)));
    this.ends.push(await bus.subscribe(moreFor(self), (message) => this.more(message)));
  }

  /**
   * Stops taking requests. Those taken still go on: as the links close (the instance is
   * stopping), each is answered as a lost link answers, and the answer goes back while the bus is open.
   */
  close(): void {
    for (const end of this.ends.splice(0)) end();
  }

  private asked(message: unknown): unknown {
    const asked = record(message);
    if (asked?.type === 'ping' && typeof asked.from === 'string' && Array.isArray(asked.rids)) {
      const from = asked.from;
      return { known: asked.rids.filter((rid) => typeof rid === 'string' && this.taken.has(keyOf(from, rid))) };
    }
    if (asked?.type === 'tasks' && typeof asked.principal === 'string') return this.options.tasks(asked.principal, typeof asked.agentId === 'string' ? asked.agentId : undefined);
    if (asked?.type === 'open') return this.open(asked);
    throw new LiteError('INVALID_PARAMS', 'the hub instance got a request on the bus that this version does not take');
  }

  private open(asked: Record<string, unknown>): { here: boolean } | Promise<{ here: boolean; frame?: AnswerFrame }> {
    const headers = stringMap(asked.headers);
    if (!strings(asked, 'from', 'rid', 'agentId', 'method', 'path', 'query', 'principal', 'body') || headers === undefined || !Number.isSafeInteger(asked.parts)) {
      throw new LiteError('INVALID_PARAMS', 'a relayed request on the bus lacks a field');
    }
    const open = { ...asked, headers } as unknown as OpenRequest;
    // Not here (any more): the asking instance looks again, and asks where the link is now.
    if (!this.options.relay.isConnected(open.agentId)) return { here: false };
    const taken: Taken = { open, pieces: [open.body], gone: [], aborted: false };
    this.taken.set(keyOf(open.from, open.rid), taken);
    // The rest of a large body comes once the asker hears that the request was taken.
    if (open.parts > 0) return { here: true };
    const replied = new Promise<{ here: boolean; frame?: AnswerFrame }>((resolve) => {
      const timer = setTimeout(() => taken.reply?.(), HOLD_MS);
      taken.reply = (frame) => {
        clearTimeout(timer);
        taken.reply = undefined;
        resolve(frame === undefined ? { here: true } : { here: true, frame });
      };
    });
    void this.run(taken);
    return replied;
  }

  private more(message: unknown): void {
    const more = record(message);
    if (more === undefined || !strings(more, 'from', 'rid')) return;
    const taken = this.taken.get(keyOf(more.from as string, more.rid as string));
    if (taken === undefined) return;
    if (more.type === 'abort') this.abort(taken);
    else if (more.type === 'part' && typeof more.data === 'string') {
      taken.pieces.push(more.data);
      if (taken.pieces.length === taken.open.parts + 1) void this.run(taken);
    }
  }

  private abort(taken: Taken): void {
    this.taken.delete(keyOf(taken.open.from, taken.open.rid));
    taken.aborted = true;
    for (const listener of taken.gone.splice(0)) listener();
  }

  /** Relays the request down its agent's link and sends back the answer. */
  private async run(taken: Taken): Promise<void> {
    const { open } = taken;
    const request: HttpRequest = {
      method: open.method,
      path: open.path,
      query: new URLSearchParams(open.query),
      search: open.query,
      headers: open.headers,
      body: taken.pieces.length === 1 ? (taken.pieces[0] as string) : taken.pieces.join(''),
      onGone: (listener) => {
        taken.gone.push(listener);
        return () => {
          const at = taken.gone.indexOf(listener);
          if (at !== -1) taken.gone.splice(at, 1);
        };
      },
    };
    taken.pieces = [];
    let response: HttpResponse;
    try {
      response = await this.options.relay.forward(open.agentId, request, open.path, open.principal);
    } catch (error) {
      this.options.onError(error, `relaying a request for agent ${open.agentId} from another hub instance`);
      response = statusError(502, 'UNAVAILABLE', `agent ${open.agentId} could not be reached`);
    }
    try {
      if ('body' in response) this.whole(taken, response);
      else {
        // Said taken before the head goes out on its own subject.
        taken.reply?.();
        await this.stream(taken, response);
      }
    } finally {
      this.taken.delete(keyOf(open.from, open.rid));
    }
  }

  private whole(taken: Taken, response: Extract<HttpResponse, { body: string }>): void {
    const { open } = taken;
    const to = answersFor(open.from);
    const { status, headers, body } = response;
    if (body.length <= PART_CHARS) {
      const frame: AnswerFrame = { type: 'response', rid: open.rid, status, headers, body };
      if (taken.reply !== undefined) taken.reply(frame);
      else this.options.bus.publish(to, frame);
      return;
    }
    taken.reply?.();
    this.options.bus.publish(to, { type: 'head', rid: open.rid, status, headers, stream: false });
    for (const data of parts(body)) this.options.bus.publish(to, { type: 'chunk', rid: open.rid, data });
    this.options.bus.publish(to, { type: 'end', rid: open.rid });
  }

  private async stream(taken: Taken, response: Extract<HttpResponse, { events: AsyncIterable<string> }>): Promise<void> {
    const { open } = taken;
    const to = answersFor(open.from);
    const { bus } = this.options;
    bus.publish(to, { type: 'head', rid: open.rid, status: response.status, headers: response.headers, stream: true });
    const events = response.events[Symbol.asyncIterator]();
    try {
      while (!taken.aborted) {
        const next = await events.next();
        if (next.done === true) break;
        for (const data of parts(next.value)) bus.publish(to, { type: 'chunk', rid: open.rid, data });
      }
    } catch (error) {
      this.options.onError(error, `relaying a stream of agent ${open.agentId} to another hub instance`);
    } finally {
      if (taken.aborted) await events.return?.();
      else bus.publish(to, { type: 'end', rid: open.rid });
    }
  }
}

function keyOf(from: string, rid: string): string {
  return `${from}\n${rid}`;
}
