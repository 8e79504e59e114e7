// A request for an agent whose link another instance holds: it crosses the bus to that instance
// (cross-answer.ts there), which relays it down the link and sends the answer back as it comes.
//
//   client ─▶ A ──open{rid,…}──▶ B ──link──▶ agent        (A is told at once whether B took it)
//   client ◀─ A ◀─response | head, chunk…, end── B ◀──────
//
// A small whole answer ready at once comes with the reply to `open`. An instance that is gone
// answers nothing: the bus says so at once (no responder), and the request is tried elsewhere. Once taken, the instance is asked every `pingMs` whether it still
// holds the request; when it is gone (or twice in a row knows the request no more, or three times
// stays silent), the client is answered as when an agent's link is lost: 502 before the answer's
// head, the end of a stream after.

import { isNoResponder, type Bus } from '../../cluster/bus.js';
import { statusError } from '../../a2a/server/http.js';
import { whenGone, type HttpRequest, type HttpResponse } from '../../net/http-types.js';
import { isLiteError } from '../../errors.js';
import { headersToPass, queryToPass } from '../passed-headers.js';
import { answerFrame, answersFor, atInstance, moreFor, parts, record, type AnswerFrame, type OpenRequest } from './messages.js';
import { QueuedStream } from './queued-stream.js';

export interface CrossRequestOptions {
  bus: Bus;
  /** This instance. */
  self: string;
  /** How long an instance has to say whether it took a request (default 3 s). */
  ackMs?: number;
  /** How often the instances with requests out are asked whether they still hold them (default 1 s). */
  pingMs?: number;
  /** The most characters of a stream waiting for its client before it is ended (default 16 Mi). */
  maxQueued?: number;
  /** Told of an instance that is gone: the bus found nobody there. */
  onGone: (instance: string) => void;
}

/** Why a request did not reach the agent: nobody answers for the instance, or it holds the link no more. Safe to try elsewhere. */
export interface Miss {
  miss: 'gone' | 'not-here';
}

/** The largest whole answer taken from another instance: an agent's answer with its files. */
const MAX_ANSWER = 65 * 1024 * 1024;

interface Out {
  rid: string;
  target: string;
  agentId: string;
  answer(response: HttpResponse): void;
  acked: boolean;
  /** The client went away before the target said it took the request. */
  abandoned: boolean;
  stream?: QueuedStream;
  /** A whole answer too large for one message, gathered. */
  gathering?: { status: number; headers: Record<string, string>; pieces: string[]; size: number };
  /** Pings in a row whose answer did not know this request. */
  unknown: number;
  /** Pings in a row that got no answer in time. */
  silent: number;
}

export class CrossRequests {
  private readonly out = new Map<string, Out>();
  private readonly pinging = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private rids = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly ackMs: number;
  private readonly pingMs: number;

  constructor(private readonly options: CrossRequestOptions) {
    this.ackMs = options.ackMs ?? 3_000;
    this.pingMs = options.pingMs ?? 1_000;
    this.timer = setInterval(() => this.ping(), this.pingMs);
    this.timer.unref();
  }

  /** Listens for answers; resolves once it does. */
  async start(): Promise<void> {
    await this.options.bus.subscribe(answersFor(this.options.self), (message) => this.take(message));
  }

  /** How many requests are out to other instances now. */
  get pending(): number {
    return this.out.size;
  }

  /** Sends `request` (its path relative to the agent) to agent `agentId` through instance `target`. */
  async send(target: string, agentId: string, request: HttpRequest, path: string, principal: string): Promise<HttpResponse | Miss> {
    const { bus, self } = this.options;
    const rid = (this.rids += 1).toString(36);
    let settle: (response: HttpResponse) => void = () => undefined;
    const answered = new Promise<HttpResponse>((resolve) => (settle = resolve));
    let settled = false;
    const entry: Out = { rid, target, agentId, acked: false, abandoned: false, unknown: 0, silent: 0, answer: (response) => void (settled || ((settled = true), settle(response))) };
    this.out.set(rid, entry);
    const stopListening = whenGone(request, () => this.abandon(entry));
    if (entry.abandoned) return answered;
    const pieces = parts(request.body);
    const open: OpenRequest = { type: 'open', from: self, rid, agentId, method: request.method, path, query: queryToPass(request), headers: headersToPass(request), principal, body: pieces[0] ?? '', parts: Math.max(0, pieces.length - 1) };
    let ack: unknown;
    try {
      // Alone, it goes at once; among others, with them.
      if (this.out.size > 1) await this.turn();
      ack = await bus.request(atInstance(target), open, this.ackMs);
    } catch (error) {
      this.out.delete(rid);
      stopListening();
      if (isNoResponder(error)) return { miss: 'gone' };
      // Too slow to say, it may yet relay the request: not tried elsewhere, so that it runs once at most.
      if (!isLiteError(error, 'CLUSTER_UNAVAILABLE')) return statusError(502, 'UNAVAILABLE', `the hub instance holding the link of agent ${agentId} refused the request: ${(error as Error).message}`);
      return statusError(503, 'UNAVAILABLE', `the hub instance holding the link of agent ${agentId} did not answer in time; a task the agent may have accepted is still there`, { 'retry-after': '2' });
    }
    if (record(ack)?.here !== true) {
      this.out.delete(rid);
      stopListening();
      return { miss: 'not-here' };
    }
    entry.acked = true;
    // The answer itself, when it was ready in time to come with the word that the request was taken.
    const frame = record(ack)?.frame;
    if (frame !== undefined) this.take(frame);
    if (entry.abandoned) bus.publish(moreFor(target), { type: 'abort', from: self, rid });
    else for (const data of pieces.slice(1)) bus.publish(moreFor(target), { type: 'part', from: self, rid, data });
    const response = await answered;
    if (!('events' in response)) stopListening();
    return response;
  }

  /**
   * Resolves at the end of this turn of the event loop, with every other request of the turn:
   * their messages then leave in one write to the bus, not one write each, which under load was
   * most of what crossing cost. A request with none other out does not wait for the turn's end.
   */
  private turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length === 1) setImmediate(() => this.waiting.splice(0).forEach((go) => go()));
    });
  }

  /** Stops pinging; requests still out are answered as lost. */
  close(): void {
    clearInterval(this.timer);
    for (const entry of [...this.out.values()]) this.lost(entry);
  }

  private take(message: unknown): void {
    const frame = answerFrame(message);
    const entry = frame === undefined ? undefined : this.out.get(frame.rid);
    if (frame === undefined || entry === undefined) return; // its client went away: the rest is dropped
    entry.unknown = 0;
    if (frame.type === 'response') {
      this.out.delete(entry.rid);
      entry.answer({ status: frame.status, headers: frame.headers, body: frame.body });
    } else if (frame.type === 'head') this.head(entry, frame);
    else if (frame.type === 'chunk') this.chunk(entry, frame.data);
    else {
      this.out.delete(entry.rid);
      const gathered = entry.gathering;
      if (entry.stream !== undefined) entry.stream.end();
      else if (gathered !== undefined) entry.answer({ status: gathered.status, headers: gathered.headers, body: gathered.pieces.join('') });
      else entry.answer({ status: 204, headers: {}, body: '' });
    }
  }

  private head(entry: Out, frame: Extract<AnswerFrame, { type: 'head' }>): void {
    if (entry.stream !== undefined || entry.gathering !== undefined) return;
    if (!frame.stream) {
      entry.gathering = { status: frame.status, headers: frame.headers, pieces: [], size: 0 };
      return;
    }
    const stream = (entry.stream = new QueuedStream(this.options.maxQueued ?? 16 * 1024 * 1024, () => undefined));
    // The client stopped reading, or read too slowly: the instance holding the link stops too.
    stream.onClose(() => {
      if (this.out.get(entry.rid) === entry) this.abandon(entry);
    });
    entry.answer({ status: frame.status, headers: frame.headers, events: stream.events });
  }

  private chunk(entry: Out, data: string): void {
    if (entry.stream !== undefined) entry.stream.push(data);
    else if (entry.gathering !== undefined) {
      entry.gathering.pieces.push(data);
      entry.gathering.size += data.length;
      if (entry.gathering.size > MAX_ANSWER) {
        this.abandon(entry);
        entry.answer(statusError(502, 'UNAVAILABLE', `the answer of agent ${entry.agentId} is larger than the hub relays (${MAX_ANSWER} bytes)`));
      }
    }
  }

  /** The client went away (or its stream is over its bound): the instance holding the link is told. */
  private abandon(entry: Out): void {
    if (this.out.get(entry.rid) !== entry) return;
    this.out.delete(entry.rid);
    entry.abandoned = true;
    // Settled for nobody, so that nothing waits on an answer that will never be read.
    if (entry.stream !== undefined) entry.stream.end();
    else entry.answer(statusError(408, 'CANCELLED', 'the client went away before the agent answered'));
    if (entry.acked) this.options.bus.publish(moreFor(entry.target), { type: 'abort', from: this.options.self, rid: entry.rid });
  }

  /** The instance holding the request is gone, or lost it: answered as a lost link is. */
  private lost(entry: Out): void {
    this.out.delete(entry.rid);
    if (entry.stream !== undefined) entry.stream.end();
    else entry.answer(statusError(502, 'UNAVAILABLE', `the hub instance holding the link of agent ${entry.agentId} stopped before the agent answered; a task it accepted is still at the agent`));
  }

  /** Asks each instance with requests out whether it still holds them, one question at a time. */
  private ping(): void {
    const byTarget = new Map<string, Out[]>();
    for (const entry of this.out.values()) {
      if (!entry.acked) continue;
      const list = byTarget.get(entry.target) ?? [];
      byTarget.set(entry.target, list);
      list.push(entry);
    }
    for (const [target, entries] of byTarget) {
      if (this.pinging.has(target)) continue;
      this.pinging.add(target);
      const rids = entries.map((entry) => entry.rid);
      this.options.bus
        .request(atInstance(target), { type: 'ping', from: this.options.self, rids }, this.ackMs)
        .then(
          (answer) => {
            for (const entry of entries) entry.silent = 0;
            const known = new Set(Array.isArray(record(answer)?.known) ? (record(answer)?.known as unknown[]) : []);
            // An answer's end may cross this reply on the bus: only twice unknown is lost.
            for (const entry of entries) if (this.out.get(entry.rid) === entry && !known.has(entry.rid) && (entry.unknown += 1) >= 2) this.lost(entry);
          },
          (error: unknown) => {
            const gone = isNoResponder(error);
            if (gone) this.options.onGone(target);
            // No answer in time: an instance that stays silent three times is taken for hung.
            for (const entry of entries) if (this.out.get(entry.rid) === entry && (gone || (entry.silent += 1) >= 3)) this.lost(entry);
          },
        )
        .finally(() => this.pinging.delete(target));
    }
  }
}
