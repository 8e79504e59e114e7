// The bus between the instances of one cluster (replicas of an agent): subjects to publish on and
// subscribe to, and requests one subscriber answers. In-process (memory-bus.ts: tests, one
// process) or NATS (nats-bus.ts). The database is the truth and the bus only makes things prompt:
// a message may be lost (during a reconnect, say), so whoever listens also catches up from the store.
//
//   publish(subject, message) ──► every subscriber of subject          (none listening: dropped)
//   request(subject, message) ──► the responder of subject ──► answer  (none, or too slow: CLUSTER_UNAVAILABLE)

import { ERROR_TABLE, LiteError, type ErrorCode } from '../errors.js';

/** Told each message published on a subject, as JSON data. */
export type BusListener = (message: unknown) => void;
/** Answers a request; a thrown LiteError reaches the requester as itself. */
export type BusResponder = (message: unknown) => unknown;

export interface Bus {
  /** The cluster's subject prefix: every subject given here is relative to it. */
  readonly prefix: string;
  /** Sends `message` (JSON data) to whoever subscribes to `subject` now; never waits, never throws. */
  publish(subject: string, message: unknown): void;
  /**
   * Subscribes to `subject`; resolves once the subscription is in place, so that whatever is
   * published after that reaches `listener`. Resolves with the function that ends it.
   */
  subscribe(subject: string, listener: BusListener): Promise<() => void>;
  /** Answers the requests sent to `subject`, as `subscribe` does; resolves with the function that stops it. */
  respond(subject: string, responder: BusResponder): Promise<() => void>;
  /**
   * Sends `message` to the responder of `subject` and resolves with its answer. Rejects with the
   * responder's LiteError, or CLUSTER_UNAVAILABLE when nobody answers within `timeoutMs`
   * (`details.reason`: "no-responder" when nobody listens there at all, else "timeout").
   */
  request(subject: string, message: unknown, timeoutMs: number): Promise<unknown>;
  /** Calls `listener` when the connection is back after a loss: what was published meanwhile is lost. */
  onReconnect(listener: () => void): () => void;
  /** Ends every subscription and the connection; later requests reject, later publishes are dropped. */
  close(): Promise<void>;
}

/** How a bus is opened (openBus). */
export interface BusOptions {
  /** The cluster's subject prefix: dot-separated words, the same for every instance of the cluster. */
  prefix: string;
  /** The connection's name, shown by the NATS server's monitoring (a replica's name, say). */
  name?: string;
  /** Told of connection losses and returns, and of messages that could not be read. */
  onError?: (error: unknown, what: string) => void;
  /** How long the first connection may take (default 5 s). */
  connectTimeoutMs?: number;
}

/** Why a request got no answer. */
export type NoAnswer = 'no-responder' | 'timeout' | 'closed';

/** The error of a request nobody answered. */
export function noAnswer(subject: string, reason: NoAnswer, timeoutMs?: number): LiteError {
  const why = reason === 'no-responder' ? 'nobody listens there' : reason === 'timeout' ? `no answer within ${timeoutMs} ms` : 'the bus is closed';
  return new LiteError('CLUSTER_UNAVAILABLE', `a request to ${subject} went unanswered: ${why}`, { reason });
}

/** True for the error of a request that nobody listened for. */
export function isNoResponder(error: unknown): boolean {
  return error instanceof LiteError && error.code === 'CLUSTER_UNAVAILABLE' && error.details?.reason === 'no-responder';
}

const TOKEN = /^[A-Za-z0-9_=-]+$/;

/** A subject prefix: dot-separated tokens of letters, digits, `_`, `-`, `=`. USAGE otherwise. */
export function checkPrefix(prefix: string): string {
  if (prefix.length > 200 || !prefix.split('.').every((token) => TOKEN.test(token))) {
    throw new LiteError('USAGE', `the cluster subject prefix "${prefix}" must be dot-separated words of letters, digits, "_" and "-"`);
  }
  return prefix;
}

/**
 * Any text (a task id, a replica name) as one subject token: as it is when it is one already,
 * else `=` and its base64url, which no plain token begins with, so two names never share a token.
 */
export function subjectToken(name: string): string {
  return TOKEN.test(name) && !name.startsWith('=') ? name : `=${Buffer.from(name, 'utf8').toString('base64url')}`;
}

/** What a responder sends back: its answer, or its error. */
type Envelope = { ok: unknown } | { error: { code: string; message: string; details?: Record<string, unknown> } };

/** The envelope of `answer(message)`, whatever it throws. */
export async function answerEnvelope(responder: BusResponder, message: unknown): Promise<Envelope> {
  try {
    return { ok: (await responder(message)) ?? null };
  } catch (error) {
    if (error instanceof LiteError) return { error: error.details === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, details: error.details } };
    return { error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** The answer an envelope holds, or its error thrown again. */
export function openEnvelope(subject: string, envelope: unknown): unknown {
  if (typeof envelope === 'object' && envelope !== null) {
    if ('ok' in envelope) return envelope.ok;
    if ('error' in envelope && typeof envelope.error === 'object' && envelope.error !== null) {
      const { code, message, details } = envelope.error as { code?: unknown; message?: unknown; details?: Record<string, unknown> };
      const known = typeof code === 'string' && Object.hasOwn(ERROR_TABLE, code);
      throw new LiteError(known ? (code as ErrorCode) : 'INTERNAL', typeof message === 'string' ? message : `the answer from ${subject} failed`, details);
    }
  }
  throw new LiteError('INTERNAL', `the answer from ${subject} is not one this version sends`);
}
