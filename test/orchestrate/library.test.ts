// The library's plan API as code uses it: startPlan's events as an async iterable, runPlan with
// an AbortSignal, and a bad plan refused before anything is sent, against real agents.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLiteError, openHomeStores, runPlan, startPlan, type RunEvent } from '../../src/index.js';
import { tempHome } from '../fixtures/home.js';
import { AgentSet, unique, type TestAgent } from './agents.js';

const set = new AgentSet();
let alpha: TestAgent;

beforeAll(async () => {
  alpha = await set.start('alpha');
}, 30_000);

afterAll(() => set.close());

const options = () => {
  const dir = tempHome('library');
  return { stores: openHomeStores({ flag: join(dir, 'home') }), root: dir, env: process.env };
};

describe('the plan library', () => {
  it('gives a run\'s events in order as an async iterable, then its result', async () => {
    const tag = unique('iter');
    const plan = { steps: [{ id: 'a', agent: alpha.url, text: `echo a ${tag}` }, { id: 'b', agent: alpha.url, text: 'echo {{steps.a.text}} b' }] };
    const running = startPlan(plan, options());
    const seen: RunEvent[] = [];
    for await (const event of running.events) seen.push(event);
    const { run } = await running.result;
    expect(run.state).toBe('completed');
    expect(run.output?.text).toBe(`a ${tag} b`);
    expect(seen[0]).toMatchObject({ type: 'run', state: 'started', steps: [{ id: 'a', needs: [] }, { id: 'b', needs: ['a'] }] });
    expect(seen.at(-1)).toMatchObject({ type: 'run', state: 'completed' });
    const steps = seen.flatMap((e) => (e.type === 'step' && ['sending', 'completed'].includes(e.state) ? [`${e.key} ${e.state}`] : []));
    expect(steps).toEqual(['a sending', 'a completed', 'b sending', 'b completed']);
  });

  it('ends the events and rejects the result for a bad plan, sending nothing', async () => {
    const tag = unique('bad');
    const running = startPlan({ steps: [{ id: 'a', agent: alpha.url, text: `echo ${tag} {{inputs.nope}}` }] }, options());
    const seen: RunEvent[] = [];
    for await (const event of running.events) seen.push(event);
    expect(seen).toEqual([]);
    const error = await running.result.catch((e: unknown) => e);
    expect(isLiteError(error, 'INVALID_PLAN')).toBe(true);
    expect(set.lines().filter((l) => l.text.includes(tag))).toEqual([]);
  });

  it('cancels the running subtasks at their agents when its signal aborts', async () => {
    const tag = unique('abort');
    const abort = new AbortController();
    const { run } = await runPlan(
      { steps: [{ id: 'slow', agent: alpha.url, text: `sleep 30000 ${tag}` }] },
      { ...options(), signal: abort.signal, onEvent: (event) => event.type === 'step' && event.progress === 50 && abort.abort() },
    );
    expect(run.state).toBe('cancelled');
    expect(set.lines().filter((l) => l.event === 'cancel' && l.text === `sleep 30000 ${tag}`)).toHaveLength(1);
  });
});
