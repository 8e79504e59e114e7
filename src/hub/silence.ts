// The agent's watch over a link to a hub that does not watch it with WebSocket pings (an event
// stream, or a hub built before those): the hub's heartbeat frames must keep coming. A connection
// through NAT can die without either end being told (a mapping that expired, a host that
// vanished); hearing nothing for the hub's budget of heartbeats and half of one more, the agent
// drops the connection and dials again.
export class Silence {
  private last = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly drop: (why: string) => void) {}

  heard(): void {
    this.last = performance.now();
  }

  /** The hub said it sends a heartbeat every `heartbeatMs`, and drops a link that misses `missed` in a row. */
  expect(heartbeatMs: number, missed: number): void {
    this.stop();
    if (!Number.isFinite(heartbeatMs) || heartbeatMs <= 0) return;
    const limit = Math.max(1, missed) * heartbeatMs + heartbeatMs / 2;
    this.timer = setInterval(
      () => {
        if (performance.now() - this.last > limit) {
          this.stop();
          this.drop(`no heartbeat from the hub for ${Math.round(limit / 100) / 10} s (one every ${heartbeatMs / 1000} s, ${missed} missed)`);
        }
      },
      Math.max(25, Math.min(heartbeatMs / 4, 10_000)),
    );
    this.timer.unref();
  }

  /** Ends the watch, dropping the connection: `why` says what failed. */
  end(why: string): void {
    if (this.timer === undefined) return;
    this.stop();
    this.drop(why);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
