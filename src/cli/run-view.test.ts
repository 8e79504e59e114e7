import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../orchestrate/events.js';
import type { Context } from './context.js';
import { RunView } from './run-view.js';

function capture(): { context: Context; text(): string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const context: Context = { env: {}, cwd: '/', stdin: new PassThrough(), stdout: out, stderr: new PassThrough() };
  return { context, text: () => text };
}

const run = 'r1';
const EVENTS: RunEvent[] = [
  { type: 'run', run, context: 'c1', state: 'started', name: 'demo', steps: [{ id: 'a', needs: [], each: false }, { id: 'fan', needs: ['a'], each: true }] },
  { type: 'step', run, key: 'a', step: 'a', state: 'sending', attempt: 1, agent: 'alpha' },
  { type: 'step', run, key: 'a', step: 'a', state: 'running', attempt: 1, agent: 'alpha', task: 't1' },
  { type: 'step', run, key: 'a', step: 'a', state: 'running', attempt: 1, agent: 'alpha', task: 't1', progress: 50, text: 'halfway' },
  { type: 'step', run, key: 'a', step: 'a', state: 'running', attempt: 1, agent: 'alpha', task: 't1', progress: 50, text: 'halfway' },
  { type: 'step', run, key: 'a', step: 'a', state: 'completed', attempt: 1, agent: 'alpha', task: 't1', text: 'done' },
  { type: 'step', run, key: 'fan', step: 'fan', items: 2, state: 'running', attempt: 0 },
  { type: 'step', run, key: 'fan.0', step: 'fan', index: 0, state: 'completed', attempt: 1, agent: 'beta' },
  { type: 'step', run, key: 'fan.1', step: 'fan', index: 1, state: 'failed', attempt: 2, agent: 'beta', error: 'it broke' },
  { type: 'run', run, context: 'c1', state: 'failed', error: 'step fan ended failed' },
];

describe('RunView', () => {
  it('prints one JSON line per event with --json', () => {
    const { context, text } = capture();
    const view = new RunView(context, 'json');
    for (const event of EVENTS) view.show(event);
    expect(text().trimEnd().split('\n').map((l) => JSON.parse(l) as RunEvent)).toEqual(EVENTS);
  });

  it('prints one plain line per change when not on a terminal, leaving out repeats', () => {
    const { context, text } = capture();
    const view = new RunView(context, 'lines');
    for (const event of EVENTS) view.show(event);
    expect(text().split('\n')).toEqual([
      'plan demo · run r1 (started)',
      'a: sending at alpha',
      'a: running at alpha task=t1',
      'a: running 50% at alpha task=t1 · halfway',
      'a: completed at alpha task=t1 · done',
      'fan: running',
      'fan.0: completed at beta',
      'fan.1: failed (attempt 2) at beta · it broke',
      '',
    ]);
  });

  it('draws the tree in place on a terminal, with a bar per step and a fan-out as one line', () => {
    const { context, text } = capture();
    const view = new RunView(context, 'tty');
    for (const event of EVENTS) view.show(event);
    view.finish();
    const frames = text().split(/\x1b\[\d+A\x1b\[J/);
    expect(frames.length).toBeGreaterThan(5);
    const last = frames.at(-1)?.split('\n') ?? [];
    expect(last[0]).toBe('plan demo · run r1 (started)');
    expect(last[1]).toMatch(/^✓ a +completed +\[█{12}\] 100% {2}alpha {2}done$/);
    // The fan-out sits under the step it needs, half done, and lists the item that went wrong.
    expect(last[2]).toMatch(/^ {2}● fan +running +\[█{6}░{6}\] {2}50% {2}1\/2 done$/);
    expect(last[3]).toMatch(/^ {4}✗ fan\.1 +failed +\[░{12}\] +0% {2}beta {2}it broke$/);
    expect(last).toHaveLength(5);
  });
});
