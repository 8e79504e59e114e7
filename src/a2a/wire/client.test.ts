// What a client reads back from agents: tasks and stream events of 1.0 and 0.3, checked field by
// field. Round trips through our own writers, and hostile input that must only ever be refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLiteError } from '../../errors.js';
import type { Task, TaskEvent } from '../../model/task.js';
import { eventFromV1, eventToV1, taskFromV1, taskToV1 } from './v1.js';
import { eventFromV03, eventToV03, taskFromV03, taskToV03 } from './v03.js';

const task: Task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'working', timestamp: '2026-11-21T10:00:00.000Z', message: { messageId: 'm-2', role: 'agent', parts: [{ kind: 'text', text: '正在收集资料' }], taskId: 't-1', contextId: 'c-1' } },
  history: [{ messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'go' }], taskId: 't-1', contextId: 'c-1' }],
  artifacts: [
    {
      artifactId: 'a-1',
      name: 'result',
      parts: [
        { kind: 'text', text: 'done' },
        { kind: 'file', name: 'report.md', mediaType: 'text/markdown', bytes: Buffer.from('# hi').toString('base64') },
        { kind: 'data', data: { n: 1 } },
      ],
    },
  ],
};

const events: TaskEvent[] = [
  { kind: 'task', task },
  { kind: 'status', taskId: 't-1', contextId: 'c-1', status: { state: 'completed', timestamp: '2026-11-21T10:00:01.000Z' } },
  { kind: 'artifact', taskId: 't-1', contextId: 'c-1', artifact: task.artifacts[0]!, append: false, lastChunk: true },
];

describe('reading tasks and events back', () => {
  it('reads what our 1.0 writer wrote', () => {
    expect(taskFromV1(taskToV1(task))).toEqual(task);
    for (const event of events) expect(eventFromV1(eventToV1(event))).toEqual(event);
  });

  it('reads what our 0.3 writer wrote, with canceled spelled the 0.3 way', () => {
    expect(taskFromV03(taskToV03(task))).toEqual(task);
    for (const event of events) expect(eventFromV03(eventToV03(event))).toEqual(event);
    expect(eventFromV03({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'canceled' }, final: true })).toMatchObject({ status: { state: 'cancelled' } });
  });

  it.each([
    ['a 1.0 event with nothing in it', () => eventFromV1({}), /holds none of task, message, statusUpdate, artifactUpdate/],
    ['a 1.0 task without id', () => taskFromV1({ status: { state: 'TASK_STATE_WORKING' } }), /task.id is required/],
    ['a 1.0 unknown state', () => taskFromV1({ id: 't', status: { state: 'TASK_STATE_DREAMING' } }), /"TASK_STATE_DREAMING" is not a 1.0 task state/],
    ['a 1.0 state named __proto__', () => taskFromV1({ id: 't', status: { state: '__proto__' } }), /"__proto__" is not a 1.0 task state/],
    ['a 1.0 state named toString', () => taskFromV1({ id: 't', status: { state: 'toString' } }), /"toString" is not a 1.0 task state/],
    ['a 0.3 state named constructor', () => taskFromV03({ kind: 'task', id: 't', status: { state: 'constructor' } }), /"constructor" is not a 0.3 task state/],
    ['a 1.0 part with two contents', () => taskFromV1({ id: 't', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ parts: [{ text: 'a', raw: 'YQ==' }] }] }), /exactly one of/],
    ['a 0.3 event of no kind', () => eventFromV03({ taskId: 't' }), /is none of task, message/],
    ['a 0.3 status update without task id', () => eventFromV03({ kind: 'status-update', status: { state: 'working' } }), /taskId is required/],
  ])('refuses %s, naming the field', (_what, read, message) => {
    expect(read).toThrow(message);
  });

  it('quotes a bad value by its kind, however deep it nests', () => {
    const deep: unknown = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expect(() => taskFromV1({ id: 't', status: { state: deep } })).toThrow('task.status.state an array is not a 1.0 task state');
    expect(() => taskFromV03({ id: 't', kind: 'task', status: { state: deep } })).toThrow('an array is not a 0.3 task state');
    expect(() => eventFromV03({ kind: { deep } })).toThrow('result.kind an object is none of');
    expect(() => taskFromV1({ id: 't', status: { state: 'x'.repeat(10_000) } })).toThrow(/"x{80}…" is not a 1.0 task state/);
  });

  it('never throws anything but a LiteError on hostile JSON', () => {
    const hostile = fc.oneof(
      fc.jsonValue(),
      fc.record({ task: fc.jsonValue(), statusUpdate: fc.jsonValue(), artifactUpdate: fc.jsonValue(), kind: fc.constantFrom('task', 'message', 'status-update', 'artifact-update', 'x') }, { requiredKeys: [] }),
      fc.record({ id: fc.string(), status: fc.record({ state: fc.constantFrom('TASK_STATE_WORKING', 'working', 'canceled', 7) }, { requiredKeys: [] }), artifacts: fc.jsonValue(), history: fc.jsonValue() }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(hostile, (value) => {
        for (const read of [eventFromV1, taskFromV1, eventFromV03, taskFromV03]) {
          try {
            read(value);
          } catch (error) {
            expect(isLiteError(error)).toBe(true);
          }
        }
      }),
      { numRuns: 10_000 },
    );
  });
});
