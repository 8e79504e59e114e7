// The bus inside one process: replicas that share a MemoryNetwork reach each other as they would
// over NATS, with the same copies (JSON), the same delivery on a later turn of the event loop and
// the same answers when nobody listens. For tests, and for several agents in one process.

import { LiteError } from '../errors.js';
import { answerEnvelope, checkPrefix, noAnswer, openEnvelope, type Bus, type BusListener, type BusResponder } from './bus.js';

/** The subjects of one process: each connection (MemoryBus) made on it reaches the others. */
export class MemoryNetwork {
  private readonly subjects = new Map<string, Set<BusListener>>();
  private readonly responders = new Map<string, Set<BusResponder>>();

  /** A new connection to this network, with subjects under `prefix`. */
  connect(prefix: string): MemoryBus {
    return new MemoryBus(prefix, this);
  }

  /** @internal */
  add(subject: string, listener: BusListener): () => void {
    return addTo(this.subjects, subject, (message) => listener(message));
  }

  /** @internal */
  addResponder(subject: string, responder: BusResponder): () => void {
    return addTo(this.responders, subject, (message) => responder(message));
  }

  /** @internal Delivers a copy of `data` to every subscriber of `subject`, on a later turn. */
  deliver(subject: string, data: string): void {
    const listeners = this.subjects.get(subject);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) {
      setImmediate(() => {
        if (listeners.has(listener)) listener(JSON.parse(data));
      });
    }
  }

  /** @internal The first responder of `subject`, if any. */
  responder(subject: string): BusResponder | undefined {
    for (const responder of this.responders.get(subject) ?? []) return responder;
    return undefined;
  }
}

function addTo<T>(map: Map<string, Set<T>>, subject: string, entry: T): () => void {
  let set = map.get(subject);
  if (set === undefined) map.set(subject, (set = new Set()));
  set.add(entry);
  return () => {
    set.delete(entry);
    if (set.size === 0 && map.get(subject) === set) map.delete(subject);
  };
}

/** One connection to a MemoryNetwork. */
export class MemoryBus implements Bus {
  readonly prefix: string;
  private readonly network: MemoryNetwork;
  private readonly ends = new Set<() => void>();
  private readonly reconnects = new Set<() => void>();
  private closed = false;

  constructor(prefix: string, network = new MemoryNetwork()) {
    this.prefix = checkPrefix(prefix);
    this.network = network;
  }

  /** Another connection to the same network and prefix: another replica's bus. */
  peer(): MemoryBus {
    return new MemoryBus(this.prefix, this.network);
  }

  publish(subject: string, message: unknown): void {
    if (!this.closed) this.network.deliver(this.full(subject), JSON.stringify(message));
  }

  async subscribe(subject: string, listener: BusListener): Promise<() => void> {
    return this.keep(this.network.add(this.full(subject), listener));
  }

  async respond(subject: string, responder: BusResponder): Promise<() => void> {
    return this.keep(this.network.addResponder(this.full(subject), responder));
  }

  async request(subject: string, message: unknown, timeoutMs: number): Promise<unknown> {
    const full = this.full(subject);
    if (this.closed) throw noAnswer(full, 'closed');
    // As NATS answers at once when nobody listens, after a round trip.
    await new Promise((resolve) => setImmediate(resolve));
    const responder = this.network.responder(full);
    if (responder === undefined) throw noAnswer(full, 'no-responder');
    const request = JSON.parse(JSON.stringify(message)) as unknown;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(noAnswer(full, 'timeout', timeoutMs)), timeoutMs)));
    try {
      const envelope = await Promise.race([answerEnvelope(responder, request), late]);
      return openEnvelope(full, JSON.parse(JSON.stringify(envelope)));
    } finally {
      clearTimeout(timer);
    }
  }

  onReconnect(listener: () => void): () => void {
    this.reconnects.add(listener);
    return () => this.reconnects.delete(listener);
  }

  /** Tells the reconnect listeners, as a connection that came back would (for tests). */
  simulateReconnect(): void {
    for (const listener of this.reconnects) listener();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const end of this.ends) end();
    this.ends.clear();
  }

  private keep(end: () => void): () => void {
    if (this.closed) {
      end();
      throw new LiteError('CLUSTER_UNAVAILABLE', 'the bus is closed');
    }
    const once = (): void => {
      this.ends.delete(once);
      end();
    };
    this.ends.add(once);
    return once;
  }

  private full(subject: string): string {
    return `${this.prefix}.${subject}`;
  }
}
