// The soak of bench/soak.mjs, scaled to the test suite: 1,000 SSE streams held 15 s while
// SendMessage runs at a steady rate, then one slow reader against a fast emitter. The full 60 s
// is `node bench/soak.mjs`; the figures are in docs/performance.md ("Load").
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Memory {
  heapUsed: number;
  rss: number;
}
interface Report {
  soak: {
    streams: number;
    opened: number;
    held: number;
    complete: number;
    received: number;
    expected: number;
    fewestTicks: number;
    problems: Record<string, number>;
    sends: { sent: number; answered: number; errors: number };
    memory: { start: Memory; peak: Memory; end: Memory };
  };
  slow: { bytes: number; dropped: boolean; memory: { start: Memory; peak: Memory; end: Memory } };
}

const MiB = 1024 * 1024;
const STREAMS = 1000;
const HOLD_S = 15;
const RATE = 100;

function runSoak(): Promise<Report> {
  const script = fileURLToPath(new URL('../../bench/soak.mjs', import.meta.url));
  // Not pinned: the suite's other files share the cores, and the scheduler spreads better.
  const args = [script, '--streams', String(STREAMS), '--hold', String(HOLD_S), '--rate', String(RATE), '--baseline', '0', '--slow-seconds', '5', '--no-pin', '--json'];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 170_000, maxBuffer: 16 * MiB }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Report);
    });
  });
}

describe('load', () => {
  it(`holds ${STREAMS} streams for ${HOLD_S} s under a steady SendMessage load without losing an event, and frees them`, { timeout: 180_000 }, async () => {
    const { soak, slow } = await runSoak();
    // Every stream stayed open for the whole hold, then got each numbered event once, in order,
    // and the task's result.
    expect(soak.problems).toEqual({});
    expect(soak.opened).toBe(STREAMS);
    expect(soak.held).toBe(STREAMS);
    expect(soak.complete).toBe(STREAMS);
    expect(soak.received).toBe(soak.expected);
    // The tasks kept ticking through the hold (one a second; a loaded machine is late, not silent).
    expect(soak.fewestTicks).toBeGreaterThanOrEqual(HOLD_S / 3);
    // The SendMessage load was answered in full, without error.
    expect(soak.sends.sent).toBeGreaterThanOrEqual((RATE * HOLD_S) / 2);
    expect(soak.sends.answered).toBe(soak.sends.sent);
    expect(soak.sends.errors).toBe(0);
    // Held streams cost about 15 KB each; once they end, what stays is the stored tasks (about
    // 1 KB each, some 2,500 here) and the event logs of the held ones (some 15 events each, for
    // resuming), well short of that plus what a thousand leaked streams would keep.
    expect(soak.memory.peak.heapUsed - soak.memory.start.heapUsed).toBeLessThan(128 * MiB);
    expect(soak.memory.end.heapUsed - soak.memory.start.heapUsed).toBeLessThan(24 * MiB);

    // A reader at 100 KiB/s against a task emitting as fast as it can: the server dropped it
    // rather than queue the task's events for it (about 450 bytes of heap each, over 100,000
    // events in these 5 s).
    expect(slow.bytes).toBeGreaterThan(0);
    expect(slow.dropped).toBe(true);
    expect(slow.memory.peak.heapUsed - slow.memory.start.heapUsed).toBeLessThan(32 * MiB);
  });
});
