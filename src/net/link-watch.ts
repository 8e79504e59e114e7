// How one end of a WebSocket link learns that the link is dead, in seconds, whether it is idle or
// busy. A connection through NAT can die with neither end told (a mapping that expired, a router
// that went away): no FIN, no RST, only silence, and TCP alone would retransmit for many minutes.
//
//   heard   any byte read from the peer (a frame, a ping, a pong, part of a large message)
//   ping    a WebSocket ping (a few bytes) once nothing was heard for `pingAfterMs`; its payload
//           is its number, which the peer's pong echoes
//   dead    nothing heard for `intervalMs × missed`                        → "no answer to pings"
//           or data written and no pong to the ping sent after it within
//           `writeTimeoutMs`, while the bytes waiting to be sent did not shrink → "write timeout"
//
// Only one end needs to ping an idle link: the other hears those pings and answers them. The
// dialler therefore pings later (`pingAfterMs` longer than the interval), and an idle link costs
// a ping and a pong per interval: 2 + 6 bytes of WebSocket and the number.

/** What the watch is told to use, both ends having agreed on the interval, the budget and the timeout. */
export interface WatchOptions {
  /** The heartbeat: how often the link should hear from its peer. */
  intervalMs: number;
  /** Intervals in a row with nothing heard before the link is dead (at least 1). */
  missed: number;
  /** How long data written may wait for the pong of the ping sent after it. */
  writeTimeoutMs: number;
  /** Silence before this end pings (default `intervalMs`). */
  pingAfterMs?: number;
  /** A pong came back after `ms`. */
  onRtt?: (ms: number) => void;
}

/** What the watch needs of its link. */
export interface Watched {
  /** Bytes read from the connection so far. */
  bytesRead(): number;
  /** Bytes written and not yet taken by the kernel. */
  backlog(): number;
  /** Sends a ping whose payload is `payload`. */
  ping(payload: string): void;
  /** Drops the connection, saying why. */
  drop(reason: string): void;
}

export class LinkWatch {
  private lastHeard = performance.now();
  private lastPing = -Infinity;
  private lastPong = -Infinity;
  private lastRead = 0;
  private lastCheck = performance.now();
  private lastBacklog = 0;
  private seq = 0;
  private readonly sentAt = new Map<number, number>();
  /** The ping sent after data was written, while its pong has not come. */
  private probe: { seq: number; at: number } | undefined;
  /** Those waiting on the pong of each ping asked for, by its number. */
  private readonly waiting = new Map<number, ((answered: boolean) => void)[]>();
  /** The ping `ask` sent last, while its pong has not come: later asks wait on it too. */
  private asked: number | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly link: Watched,
    readonly options: WatchOptions,
  ) {
    const tick = Math.max(25, Math.min(options.intervalMs, options.writeTimeoutMs) / 4);
    this.lastRead = link.bytesRead();
    this.timer = setInterval(() => this.check(), tick);
    this.timer.unref();
  }

  /** Something came from the peer. */
  heard(): void {
    this.lastHeard = performance.now();
  }

  /** Milliseconds since the peer was last heard. */
  silence(): number {
    this.check(false);
    return performance.now() - this.lastHeard;
  }

  /** A pong came with `payload`. */
  pong(payload: string): void {
    const now = performance.now();
    this.lastHeard = now;
    this.lastPong = now;
    const seq = Number.parseInt(payload, 36);
    const sent = this.sentAt.get(seq);
    if (sent === undefined) return;
    // Pongs come in order: this one answers every ping sent before it too, those no longer
    // timed (past the few `sentAt` keeps) included.
    for (const [older] of this.sentAt) {
      if (older > seq) break;
      this.sentAt.delete(older);
    }
    for (const [older, answers] of this.waiting) {
      if (older > seq) continue;
      this.waiting.delete(older);
      for (const answer of answers) answer(true);
    }
    if (this.asked !== undefined && this.asked <= seq) this.asked = undefined;
    if (this.probe !== undefined && this.probe.seq <= seq) this.probe = undefined;
    this.options.onRtt?.(now - sent);
  }

  /**
   * Data was written: unless a ping is already on its way, one follows it (`send` is called at
   * the end of the turn, after the data), and its pong must come within `writeTimeoutMs`. A link
   * that answered a ping a moment ago is not asked again at once.
   */
  wrote(): boolean {
    if (this.probe !== undefined) return false;
    const now = performance.now();
    if (now - this.lastPong < Math.min(this.options.intervalMs, this.options.writeTimeoutMs) / 4) return false;
    this.probe = { seq: this.nextSeq(), at: now };
    return true;
  }

  /** Sends the ping `wrote` asked for. */
  sendProbe(): void {
    if (this.probe !== undefined && !this.sentAt.has(this.probe.seq)) this.sendPing(this.probe.seq);
  }

  /**
   * Pings now, or joins the ping an earlier ask sent whose pong has not come (many requests
   * that find the link in doubt at once send one ping): true once the pong comes within
   * `timeoutMs`, false if it does not.
   */
  ask(timeoutMs: number): Promise<boolean> {
    let seq = this.asked;
    if (seq === undefined || !this.waiting.has(seq)) {
      seq = this.asked = this.nextSeq();
      this.waiting.set(seq, []);
      this.sendPing(seq);
    }
    const answers = this.waiting.get(seq) as ((answered: boolean) => void)[];
    return new Promise((resolve) => {
      const answer = (answered: boolean): void => {
        clearTimeout(timer);
        resolve(answered);
      };
      const timer = setTimeout(() => {
        const at = answers.indexOf(answer);
        if (at !== -1) answers.splice(at, 1);
        resolve(false);
      }, timeoutMs);
      answers.push(answer);
    });
  }

  stop(): void {
    clearInterval(this.timer);
    for (const answers of this.waiting.values()) for (const answer of answers) answer(false);
    this.waiting.clear();
  }

  private nextSeq(): number {
    this.seq = (this.seq + 1) % 0x7fffffff;
    return this.seq;
  }

  private sendPing(seq: number): void {
    const now = performance.now();
    this.sentAt.set(seq, now);
    // A peer that never answers leaves no more than a few numbers here.
    if (this.sentAt.size > 16) this.sentAt.delete(this.sentAt.keys().next().value as number);
    this.lastPing = now;
    this.link.ping(seq.toString(36));
  }

  private check(act = true): void {
    const now = performance.now();
    const read = this.link.bytesRead();
    if (read !== this.lastRead) {
      // Bytes of a message still coming: they came after the last check, at the latest now.
      this.lastRead = read;
      this.lastHeard = Math.max(this.lastHeard, this.lastCheck);
    }
    this.lastCheck = now;
    const backlog = this.link.backlog();
    // Bytes leaving the send buffer: the kernel is sending them, the peer's TCP acknowledging them.
    const draining = backlog < this.lastBacklog;
    this.lastBacklog = backlog;
    if (draining && this.probe !== undefined) this.probe.at = now;
    if (!act) return;
    const { intervalMs, missed, writeTimeoutMs } = this.options;
    const silent = now - this.lastHeard;
    if (silent >= intervalMs * missed) {
      this.link.drop(`no answer to pings for ${seconds(silent)} s (a ping every ${seconds(intervalMs)} s, ${missed} missed)`);
      return;
    }
    if (this.probe !== undefined && now - this.probe.at >= writeTimeoutMs) {
      this.link.drop(`write timeout: what was sent was not acknowledged within ${seconds(writeTimeoutMs)} s`);
      return;
    }
    if (silent >= (this.options.pingAfterMs ?? intervalMs) && now - this.lastPing >= intervalMs) this.sendPing(this.nextSeq());
  }
}

function seconds(ms: number): string {
  return (Math.round(ms / 100) / 10).toString();
}
