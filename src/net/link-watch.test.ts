// The watch on a link, driven by a fake clock: every timing below is a count of intervals and
// ticks the test steps through, never the wall clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LinkWatch, type WatchOptions } from './link-watch.js';

const INTERVAL = 2000;
const MISSED = 2;
const WRITE_TIMEOUT = 3000;
/** How often the watch looks: a quarter of the shorter of the interval and the write timeout. */
const TICK = 500;

/** A link with no socket: what it was asked to do, and what the test says it read and holds. */
class FakeLink {
  read = 0;
  waiting = 0;
  readonly pings: { at: number; payload: string }[] = [];
  readonly drops: { at: number; reason: string }[] = [];
  readonly watch: LinkWatch;

  constructor(options: Partial<WatchOptions> = {}) {
    this.watch = new LinkWatch(
      {
        bytesRead: () => this.read,
        backlog: () => this.waiting,
        ping: (payload) => this.pings.push({ at: performance.now(), payload }),
        drop: (reason) => {
          this.drops.push({ at: performance.now(), reason });
          // As the link does: a dropped link's watch stops.
          this.watch.stop();
        },
      },
      { intervalMs: INTERVAL, missed: MISSED, writeTimeoutMs: WRITE_TIMEOUT, ...options },
    );
  }

  private answered = 0;

  /** The peer answers every ping not yet answered (none when there is none). */
  answer(): void {
    for (const ping of this.pings.slice(this.answered)) this.watch.pong(ping.payload);
    this.answered = this.pings.length;
  }
}

let start = 0;
/** Milliseconds of the fake clock since the test began. */
const elapsed = (at: number): number => at - start;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] });
  start = performance.now();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('a link whose peer went silent', () => {
  it.each([1, 2, 3, 5])('is dropped after %i missed intervals, not one tick before, having pinged once per interval', (missed) => {
    const link = new FakeLink({ missed });
    vi.advanceTimersByTime(INTERVAL * missed - TICK);
    expect(link.drops).toEqual([]);
    vi.advanceTimersByTime(TICK);
    expect(link.drops).toHaveLength(1);
    expect(elapsed(link.drops[0]!.at)).toBe(INTERVAL * missed);
    expect(link.drops[0]!.reason).toBe(`no answer to pings for ${(INTERVAL * missed) / 1000} s (a ping every 2 s, ${missed} missed)`);
    // A ping at each interval of silence before the last, none once it is dropped.
    expect(link.pings.map((ping) => elapsed(ping.at))).toEqual(Array.from({ length: missed - 1 }, (_, i) => INTERVAL * (i + 1)));
    vi.advanceTimersByTime(INTERVAL * 10);
    expect(link.drops).toHaveLength(1);
    expect(link.pings).toHaveLength(missed - 1);
  });

  it('counts any byte read as heard: a large message still arriving keeps the link alive, and its end starts the count', () => {
    const link = new FakeLink();
    // 40 ticks (5 budgets) of a message arriving a few bytes at a time, with no frame complete.
    for (let i = 0; i < 40; i += 1) {
      link.read += 100;
      vi.advanceTimersByTime(TICK);
    }
    expect(link.drops).toEqual([]);
    expect(link.pings).toEqual([]);
    const ended = performance.now();
    vi.advanceTimersByTime(INTERVAL * MISSED + TICK);
    expect(link.drops).toHaveLength(1);
    // Heard up to the last check that saw bytes; dead a budget later, to the tick.
    expect(link.drops[0]!.at - ended).toBeLessThanOrEqual(INTERVAL * MISSED);
    expect(link.drops[0]!.at - ended).toBeGreaterThanOrEqual(INTERVAL * MISSED - TICK);
  });
});

describe('an idle link whose peer answers', () => {
  it('lives for ever on one ping and one pong per interval', () => {
    const link = new FakeLink();
    for (let tick = 0; tick < 400; tick += 1) {
      vi.advanceTimersByTime(TICK);
      link.answer();
    }
    expect(link.drops).toEqual([]);
    // 200 s: a ping at each 2 s of silence (the pong is what was heard).
    expect(link.pings).toHaveLength(100);
    expect(new Set(link.pings.map((ping) => ping.payload)).size).toBe(100);
  });

  it('leaves the pinging to the other end when this one pings later (the dialler): it only answers', () => {
    const hub = new FakeLink();
    const agent = new FakeLink({ pingAfterMs: INTERVAL * 1.5 });
    let carried = 0;
    for (let tick = 0; tick < 100; tick += 1) {
      vi.advanceTimersByTime(TICK);
      // The agent hears each of the hub's pings; the hub hears its pong.
      for (const ping of hub.pings.slice(carried)) {
        agent.watch.heard();
        hub.watch.pong(ping.payload);
      }
      carried = hub.pings.length;
    }
    expect(hub.drops).toEqual([]);
    expect(agent.drops).toEqual([]);
    expect(hub.pings).toHaveLength(25);
    expect(agent.pings).toEqual([]);
  });

  it('hears nothing from pings of its own, but from their pongs: the silence it reports is since the last pong', () => {
    const link = new FakeLink();
    vi.advanceTimersByTime(INTERVAL);
    expect(link.pings).toHaveLength(1);
    expect(link.watch.silence()).toBe(INTERVAL);
    vi.advanceTimersByTime(250);
    link.answer();
    expect(link.watch.silence()).toBe(0);
  });
});

describe('round trips', () => {
  it('measures each pong against its own ping, and a pong answers every ping before it', () => {
    const rtts: number[] = [];
    const link = new FakeLink({ onRtt: (ms) => rtts.push(ms), intervalMs: 100, writeTimeoutMs: 100, missed: 100 });
    const first = link.watch.ask(5000);
    // Silent past the interval: the watch pings on its own, after the asked ping.
    vi.advanceTimersByTime(125);
    expect(link.pings).toHaveLength(2);
    vi.advanceTimersByTime(40);
    link.watch.pong(link.pings[1]!.payload);
    // Against the second ping, the one answered, not the first.
    expect(rtts).toEqual([performance.now() - link.pings[1]!.at]);
    expect(rtts[0]).toBeLessThan(performance.now() - link.pings[0]!.at);
    return expect(first).resolves.toBe(true);
  });

  it('sends one ping for many asks while its pong is on its way, and that pong answers them all', async () => {
    const link = new FakeLink();
    // As when 40 requests find the link in doubt at once: more than the 16 pings the watch times.
    const asks = Array.from({ length: 40 }, () => link.watch.ask(1000));
    expect(link.pings).toHaveLength(1);
    vi.advanceTimersByTime(300);
    link.answer();
    await expect(Promise.all(asks)).resolves.toEqual(asks.map(() => true));
    // Answered: the next ask pings again.
    void link.watch.ask(1000);
    expect(link.pings).toHaveLength(2);
  });

  it('answers an ask whose ping is older than the pings it still times', async () => {
    const link = new FakeLink({ intervalMs: 100, writeTimeoutMs: 100, missed: 1000 });
    const asked = link.watch.ask(60_000);
    // Twenty heartbeat pings later, none answered, the asked one is no longer timed.
    vi.advanceTimersByTime(20 * 100 + 50);
    expect(link.pings.length).toBeGreaterThan(17);
    link.watch.pong(link.pings.at(-1)!.payload);
    await expect(asked).resolves.toBe(true);
  });

  it('says a ping was not answered when its time is up, or when the watch stops first', async () => {
    const link = new FakeLink();
    const unanswered = link.watch.ask(250);
    vi.advanceTimersByTime(250);
    await expect(unanswered).resolves.toBe(false);
    const stopped = link.watch.ask(10_000);
    link.watch.stop();
    await expect(stopped).resolves.toBe(false);
  });

  it('ignores a pong it never asked for', () => {
    const rtts: number[] = [];
    const link = new FakeLink({ onRtt: (ms) => rtts.push(ms) });
    link.watch.pong('zzz');
    link.watch.pong('not a number');
    expect(rtts).toEqual([]);
  });
});

describe('data written', () => {
  it('is followed by one ping, and the link dropped when its pong does not come within the write timeout', () => {
    const link = new FakeLink();
    expect(link.watch.wrote()).toBe(true);
    // More writes while that ping is on its way ask for no other.
    expect(link.watch.wrote()).toBe(false);
    link.watch.sendProbe();
    link.watch.sendProbe();
    expect(link.pings).toHaveLength(1);
    vi.advanceTimersByTime(WRITE_TIMEOUT - TICK);
    expect(link.drops).toEqual([]);
    vi.advanceTimersByTime(TICK);
    expect(link.drops.map((drop) => [elapsed(drop.at), drop.reason])).toEqual([[WRITE_TIMEOUT, 'write timeout: what was sent was not acknowledged within 3 s']]);
  });

  it('is not asked about when its pong comes, nor again right after a pong', () => {
    const link = new FakeLink();
    link.watch.wrote();
    link.watch.sendProbe();
    vi.advanceTimersByTime(100);
    link.answer();
    // A link that answered a moment ago (under a quarter of the shorter budget) is trusted.
    expect(link.watch.wrote()).toBe(false);
    vi.advanceTimersByTime(TICK);
    expect(link.watch.wrote()).toBe(true);
    expect(link.drops).toEqual([]);
  });

  it('is given more time while the bytes waiting to be sent go out (a large body on a slow link), and none once they stop', () => {
    const link = new FakeLink({ missed: 100 });
    link.waiting = 100_000;
    vi.advanceTimersByTime(TICK);
    expect(link.watch.wrote()).toBe(true);
    link.watch.sendProbe();
    // 20 ticks (10 s, over three write timeouts) of the backlog draining 1,000 bytes a tick.
    for (let i = 0; i < 20; i += 1) {
      link.waiting -= 1000;
      vi.advanceTimersByTime(TICK);
    }
    expect(link.drops).toEqual([]);
    const stalled = performance.now();
    vi.advanceTimersByTime(WRITE_TIMEOUT + TICK);
    expect(link.drops).toHaveLength(1);
    expect(link.drops[0]!.reason).toMatch(/^write timeout/);
    expect(link.drops[0]!.at - stalled).toBeLessThanOrEqual(WRITE_TIMEOUT);
  });
});
