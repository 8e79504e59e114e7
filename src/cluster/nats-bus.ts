// The bus on NATS (the official client, @nats-io/transport-node, loaded only when a nats:// URL is
// given). The client reconnects by itself for as long as it takes and restores the subscriptions;
// what was published while it was away is lost, so the bus tells its users (onReconnect) to catch
// up from the store. Closing drains: what was published goes out, then the connection closes.

import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { LiteError } from '../errors.js';
import { redactCredentials } from '../secrets.js';
import { answerEnvelope, checkPrefix, noAnswer, openEnvelope, type Bus, type BusListener, type BusOptions, type BusResponder } from './bus.js';
import { natsTarget } from './nats-url.js';

/** How long `close` lets the drain take before closing at once (a lost server never answers it). */
const DRAIN_MS = 2_000;

/** Connects to the NATS servers of `url`; CLUSTER_UNAVAILABLE when none answers (the URL shown without credentials). */
export async function connectNatsBus(url: string, options: BusOptions): Promise<NatsBus> {
  const prefix = checkPrefix(options.prefix);
  const target = natsTarget(url);
  const { connect } = await import('@nats-io/transport-node');
  try {
    const connection = await connect({
      servers: target.servers,
      ...(target.user === undefined ? {} : { user: target.user, pass: target.pass as string }),
      ...(target.token === undefined ? {} : { token: target.token }),
      ...(options.name === undefined ? {} : { name: options.name }),
      timeout: options.connectTimeoutMs ?? 5_000,
      // Once connected, a lost server is waited for as long as it takes.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
    return new NatsBus(connection, prefix, options.onError);
  } catch (error) {
    throw new LiteError('CLUSTER_UNAVAILABLE', `cannot reach the cluster bus at ${target.shown}: ${reasonOf(error)}`, { cluster: target.shown });
  }
}

export class NatsBus implements Bus {
  readonly prefix: string;
  private readonly reconnects = new Set<() => void>();
  private readonly watching: Promise<void>;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  /** @internal Use `connectNatsBus`. */
  constructor(
    private readonly connection: NatsConnection,
    prefix: string,
    private readonly onError: (error: unknown, what: string) => void = () => undefined,
  ) {
    this.prefix = prefix;
    this.watching = this.watch();
  }

  publish(subject: string, message: unknown): void {
    if (this.connection.isClosed() || this.connection.isDraining()) return;
    try {
      this.connection.publish(this.full(subject), this.fitting(message));
    } catch (error) {
      this.onError(error, `publishing on ${subject}`);
    }
  }

  async subscribe(subject: string, listener: BusListener): Promise<() => void> {
    return this.listen(subject, (msg) => {
      const message = this.decode(msg, subject);
      if (message !== undefined) listener(message);
    });
  }

  async respond(subject: string, responder: BusResponder): Promise<() => void> {
    return this.listen(subject, (msg) => {
      const message = this.decode(msg, subject);
      if (message === undefined || msg.reply === undefined) return;
      void answerEnvelope(responder, message).then(async (envelope) => {
        if (this.connection.isClosed()) return;
        try {
          msg.respond(this.fitting(envelope));
        } catch (error) {
          // An answer too large to send: the requester is told so, not left to time out.
          msg.respond(this.encode(await answerEnvelope(() => Promise.reject(error), null)));
        }
      });
    });
  }

  async request(subject: string, message: unknown, timeoutMs: number): Promise<unknown> {
    const full = this.full(subject);
    if (this.connection.isClosed() || this.connection.isDraining()) throw noAnswer(full, 'closed');
    const data = this.fitting(message);
    let answer: Msg;
    try {
      answer = await this.connection.request(full, data, { timeout: timeoutMs });
    } catch (error) {
      const failed = error as Error & { cause?: Error; isNoResponders?: () => boolean };
      if (failed.isNoResponders?.() === true) throw noAnswer(full, 'no-responder');
      if (failed.name === 'TimeoutError' || failed.cause?.name === 'TimeoutError') throw noAnswer(full, 'timeout', timeoutMs);
      if (this.connection.isClosed()) throw noAnswer(full, 'closed');
      throw new LiteError('CLUSTER_UNAVAILABLE', `a request to ${full} failed: ${reasonOf(error)}`);
    }
    return openEnvelope(full, JSON.parse(this.decoder.decode(answer.data)));
  }

  onReconnect(listener: () => void): () => void {
    this.reconnects.add(listener);
    return () => this.reconnects.delete(listener);
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS)));
      await Promise.race([this.connection.drain().catch(() => undefined), late]);
      clearTimeout(timer);
      if (!this.connection.isClosed()) await this.connection.close().catch(() => undefined);
    }
    await this.watching;
  }

  /** Subscribes `deliver` to `subject`, once the server has the subscription. */
  private async listen(subject: string, deliver: (msg: Msg) => void): Promise<() => void> {
    const subscription = this.connection.subscribe(this.full(subject), {
      callback: (error, msg) => {
        if (error !== null) this.onError(error, `the subscription to ${subject}`);
        else deliver(msg);
      },
    });
    // A round trip: the server has seen the subscription once the flush returns.
    await this.connection.flush();
    return () => {
      if (!subscription.isClosed()) subscription.unsubscribe();
    };
  }

  /** Reports losses and returns of the connection, and tells the reconnect listeners. */
  private async watch(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect') this.onError(new Error('the connection to the NATS server was lost; reconnecting'), 'the cluster bus');
      else if (status.type === 'reconnect') {
        this.onError(new Error('the connection to the NATS server is back'), 'the cluster bus');
        for (const listener of this.reconnects) listener();
      } else if (status.type === 'error') this.onError(status.error, 'the cluster bus');
    }
  }

  private encode(message: unknown): Uint8Array {
    return this.encoder.encode(JSON.stringify(message));
  }

  /** `message` encoded; INPUT_TOO_LARGE past the server's largest message (1 MiB unless configured). */
  private fitting(message: unknown): Uint8Array {
    const data = this.encode(message);
    const max = this.connection.info?.max_payload;
    if (max !== undefined && data.length > max) {
      throw new LiteError('INPUT_TOO_LARGE', `a message of ${data.length} bytes cannot cross to another replica: the cluster bus carries at most ${max}`);
    }
    return data;
  }

  private decode(msg: Msg, subject: string): unknown {
    try {
      return JSON.parse(this.decoder.decode(msg.data)) as unknown;
    } catch (error) {
      this.onError(error, `reading a message on ${subject}`);
      return undefined;
    }
  }

  private full(subject: string): string {
    return `${this.prefix}.${subject}`;
  }
}

function reasonOf(error: unknown): string {
  return redactCredentials(error instanceof Error ? error.message : String(error));
}
