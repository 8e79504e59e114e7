// Limits per caller, for a server on a public host: a token bucket per principal and one per
// address (callers without a valid credential), a cap on each caller's open streams, and a
// board of who was refused how often (the hub's console reads it). Every table is bounded. A
// refusal is a 429 with Retry-After; the first of a run of refusals goes to the audit trail.
// The streams it counts are the ones it closes when a principal's credential is withdrawn.

import { ERROR_TABLE, LiteError } from '../../errors.js';
import { json, statusError, type HttpResponse, type RequestHead } from '../../net/http-types.js';
import { tell, type AuditSink } from './audit.js';
import { BucketTable, DEFAULT_MAX_KEYS, type Rate } from './token-bucket.js';
import { TrackedStreams } from './tracked-streams.js';
import { countLimitHit } from '../../telemetry/metrics.js';

export interface LimitOptions {
  /** Requests of each principal (a caller with a valid credential). */
  rate?: Rate;
  /** Requests from each address without a valid credential (every caller when auth is off). */
  addressRate?: Rate;
  /** Open streams of each caller: its principal, or its address when it has none. */
  maxStreams?: number;
  /**
   * Tasks of each principal not yet ended (`serve`); through a hub, the sends of each caller
   * still waiting for their answer or streaming it.
   */
  maxTasks?: number;
  /** The most callers each table remembers (default 10 000); the least recently seen go first. */
  maxCallers?: number;
  /** The clock of the buckets, in ms (tests). */
  now?: () => number;
}

/** Which limit a caller hit. */
export type LimitKind = 'rate' | 'address-rate' | 'streams' | 'tasks' | 'auth-failures';

/** A caller that was refused: how often and when last, for the console. */
export interface LimitedCaller {
  /** `principal` or `address`. */
  by: 'principal' | 'address';
  caller: string;
  kind: LimitKind;
  hits: number;
  lastAt: string;
}

/** How a refusal is worded: a JSON-RPC error (for a JSON-RPC path) or a google.rpc status. */
export type BindingOf = (head: RequestHead) => 'jsonrpc' | 'rest';

/** Seconds a client is told to wait when a cap on open streams or tasks refused it. */
export const CAP_RETRY_SECONDS = 5;

const BOARD_SIZE = 1000;

export class CallerLimits {
  readonly streams = new TrackedStreams();
  private readonly principals: BucketTable | undefined;
  private readonly addresses: BucketTable | undefined;
  private readonly board = new Map<string, LimitedCaller>();
  /** Callers refused since they were last let through, by limit: only a run's first refusal is audited. */
  private readonly refusing = new Set<string>();

  constructor(
    readonly options: LimitOptions = {},
    private readonly audit?: AuditSink,
  ) {
    const now = options.now ?? Date.now;
    const max = options.maxCallers ?? DEFAULT_MAX_KEYS;
    this.principals = options.rate === undefined ? undefined : new BucketTable(options.rate, now, max);
    this.addresses = options.addressRate === undefined ? undefined : new BucketTable(options.addressRate, now, max);
  }

  /**
   * Spends a token of the caller of `head`: its principal's, or its address's when it has none.
   * Undefined to let it through; else the seconds to wait.
   */
  take(head: RequestHead, principal: string | undefined): number | undefined {
    const table = principal === undefined ? this.addresses : this.principals;
    if (table === undefined) return undefined;
    const kind: LimitKind = principal === undefined ? 'address-rate' : 'rate';
    const caller = principal ?? head.remoteAddress ?? 'unknown';
    const wait = table.take(caller);
    if (wait === 0) {
      this.passed(kind, caller);
      return undefined;
    }
    this.hit(kind, principal, head.remoteAddress);
    return wait;
  }

  /** Refuses a new stream of a caller that holds `maxStreams` already (RATE_LIMITED); records the hit. */
  checkStreams(principal: string | undefined, address: string | undefined): void {
    const max = this.options.maxStreams;
    if (max === undefined) return;
    const caller = principal ?? address ?? 'unknown';
    if (this.streams.count(caller) < max) {
      this.passed('streams', caller);
      return;
    }
    this.hit('streams', principal, address);
    throw new LiteError('RATE_LIMITED', `this caller holds ${max} open stream${max === 1 ? '' : 's'}, the most it may; close one first`, { retryAfter: CAP_RETRY_SECONDS });
  }

  /** Records that `principal` (or `address`) hit limit `kind`: counted on the board, audited once a run. */
  hit(kind: LimitKind, principal: string | undefined, address: string | undefined, extra: { agent?: string; task?: string } = {}): void {
    const by = principal === undefined ? 'address' : 'principal';
    const caller = principal ?? address ?? 'unknown';
    const key = `${kind}\u0000${by}\u0000${caller}`;
    const entry = this.board.get(key) ?? { by, caller, kind, hits: 0, lastAt: '' };
    this.board.delete(key);
    entry.hits += 1;
    entry.lastAt = new Date().toISOString();
    countLimitHit(kind);
    this.board.set(key, entry);
    if (this.board.size > BOARD_SIZE) this.board.delete(this.board.keys().next().value as string);
    const run = `${kind}\u0000${caller}`;
    if (this.refusing.has(run)) return;
    if (this.refusing.size >= DEFAULT_MAX_KEYS) this.refusing.clear();
    this.refusing.add(run);
    tell(this.audit, { action: 'limit-hit', ...(principal === undefined ? {} : { principal }), ...(address === undefined ? {} : { address }), ...extra, outcome: 'RATE_LIMITED', detail: kind });
  }

  /** The callers refused lately, most recent last. */
  limited(): LimitedCaller[] {
    return [...this.board.values()].map((entry) => ({ ...entry }));
  }

  /** `caller` was let through (or, for `auth-failures`, answered 401 again): its next refusal is audited. */
  passed(kind: LimitKind, caller: string): void {
    if (this.refusing.size > 0) this.refusing.delete(`${kind}\u0000${caller}`);
  }
}

/** The 429 for a caller over its rate: a JSON-RPC error or a google.rpc status, with Retry-After. */
export function rateRefusal(binding: 'jsonrpc' | 'rest', seconds: number, what = 'too many requests from this caller; slow down'): HttpResponse {
  const headers = { 'retry-after': String(seconds) };
  if (binding === 'rest') return statusError(429, 'RESOURCE_EXHAUSTED', what, headers);
  // The request's id is not read before the body: a JSON-RPC error whose id is unknown is null.
  return json(429, { jsonrpc: '2.0', id: null, error: { code: ERROR_TABLE.RATE_LIMITED.rpc, message: what } }, headers);
}
