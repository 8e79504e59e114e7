import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TaskOwners, taskUse } from './task-owners.js';

const rpc = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

describe('how a request uses tasks', () => {
  it.each([
    ['POST', '/jsonrpc', rpc('GetTask', { id: 't1' }), { kind: 'task', taskId: 't1' }],
    ['POST', '/jsonrpc', rpc('GetTaskPushNotificationConfig', { taskId: 't1', id: 'c1' }), { kind: 'task', taskId: 't1' }],
    ['POST', '/', rpc('tasks/pushNotificationConfig/get', { id: 't1' }), { kind: 'task', taskId: 't1' }],
    ['POST', '/', rpc('tasks/resubscribe', { id: 't1' }), { kind: 'task', taskId: 't1' }],
    ['POST', '/jsonrpc', rpc('SendMessage', { message: { taskId: 't1' } }), { kind: 'task', taskId: 't1' }],
    ['POST', '/jsonrpc', rpc('SendStreamingMessage', { message: { parts: [] } }), { kind: 'send' }],
    ['POST', '/jsonrpc', rpc('ListTasks', {}), { kind: 'list' }],
    ['GET', '/tasks/t%201', '', { kind: 'task', taskId: 't 1' }],
    ['POST', '/tasks/t1:cancel', '', { kind: 'task', taskId: 't1' }],
    ['GET', '/tenant-a/tasks/t1/pushNotificationConfigs', '', { kind: 'task', taskId: 't1' }],
    ['GET', '/tasks', '', { kind: 'list' }],
    ['POST', '/message:send', JSON.stringify({ message: { taskId: 't1' } }), { kind: 'task', taskId: 't1' }],
    ['POST', '/message:stream', '{', { kind: 'send' }],
    ['POST', '/jsonrpc', 'not json', undefined],
    ['GET', '/.well-known/agent-card.json', '', undefined],
  ])('%s %s %s', (method, path, body, expected) => {
    expect(taskUse(method, path, body)).toEqual(expected);
  });

  it('never throws, whatever the request', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST'), fc.string(), fc.oneof(fc.string(), fc.json()), (method, path, body) => {
        taskUse(method, `/${path}`, body);
        taskUse(method, '/jsonrpc', body);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives a task to the first caller it was answered to, streamed or not', async () => {
    const owners = new TaskOwners();
    owners.learn('a', 'alice', { status: 200, headers: {}, body: JSON.stringify({ result: { task: { id: 't1', status: { state: 'TASK_STATE_WORKING' } } } }) });
    async function* events(): AsyncGenerator<string> {
      yield `data: ${JSON.stringify({ result: { statusUpdate: { taskId: 't2', status: { state: 'TASK_STATE_WORKING' } } } })}\n\n`;
    }
    const streamed = owners.learn('a', 'bob', { status: 200, headers: {}, events: events() });
    if ('events' in streamed) for await (const chunk of streamed.events) expect(chunk).toContain('t2');
    owners.learn('a', 'bob', { status: 200, headers: {}, body: JSON.stringify({ result: { task: { id: 't1', status: { state: 'TASK_STATE_COMPLETED' } } } }) });
    expect(() => owners.check('a', 't1', 'alice')).not.toThrow();
    expect(() => owners.check('a', 't1', 'bob')).toThrow('no task "t1" at agent a for this caller');
    expect(() => owners.check('a', 't2', 'alice')).toThrow();
    expect(() => owners.check('b', 't1', 'bob')).not.toThrow();
    const list = owners.filterList('a', 'bob', { status: 200, headers: {}, body: JSON.stringify({ result: { tasks: [{ id: 't1' }, { id: 't2' }, { id: 't3' }], totalSize: 3 } }) });
    expect('body' in list && JSON.parse(list.body)).toEqual({ result: { tasks: [{ id: 't2' }], totalSize: 1 } });
  });
});
