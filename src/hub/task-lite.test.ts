import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liteTextOf } from './task-lite.js';

const working = { state: 'TASK_STATE_WORKING', message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'half way' }], metadata: { a2aLite: { progress: 50 } } } };

describe('a relayed event as A2A-Lite text', () => {
  it.each<[string, unknown, string | undefined]>([
    ['a 1.0 JSON-RPC status update', { jsonrpc: '2.0', id: 1, result: { statusUpdate: { taskId: 't1', contextId: 'c', status: working } } }, '[A2A:status task=t1 state=working progress=50%]\nhalf way'],
    ['a 1.0 REST stream event that ends the task', { statusUpdate: { taskId: 't1', status: { state: 'TASK_STATE_FAILED', message: { messageId: 'm3', role: 'ROLE_AGENT', parts: [{ text: 'no network' }] } } } }, '[A2A:result task=t1 state=failed]\nno network'],
    ['a 0.3 status update', { jsonrpc: '2.0', id: 1, result: { kind: 'status-update', taskId: 't1', contextId: 'c', status: { state: 'input-required', message: { kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'which year?' }] } }, final: true } }, '[A2A:status task=t1 state=input-required]\nwhich year?'],
    [
      'a 1.0 task with what was asked, ended with an artifact',
      { task: { id: 't1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'research A2A' }] }], artifacts: [{ artifactId: 'a', name: 'result', parts: [{ text: 'A2A is a protocol' }] }] } },
      '[A2A:task id=t1]\nresearch A2A\n\n[A2A:result task=t1 state=completed]\nA2A is a protocol',
    ],
    ['a REST GetTask answer (a task on its own)', { id: 't1', contextId: 'c', status: working }, '[A2A:status task=t1 state=working progress=50%]\nhalf way'],
    ['a JSON-RPC error', { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'no task' } }, undefined],
    ['a list of tasks', { tasks: [{ id: 't1', status: working }], nextPageToken: '' }, undefined],
    ['an artifact chunk (said with the result)', { artifactUpdate: { taskId: 't1', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } }, undefined],
    ['a task whose state is not one', { id: 't1', status: { state: 'TASK_STATE_DANCING' } }, undefined],
  ])('%s', (_what, value, expected) => {
    expect(liteTextOf(value)).toBe(expected);
  });

  it('never throws, whatever an agent sends through the hub', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = liteTextOf(value);
        expect(text === undefined || typeof text === 'string').toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
