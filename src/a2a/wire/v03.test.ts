// The A2A 0.3 mapping: states, parts, events and tasks out; messages in, and every malformed
// message refused with the path of the field at fault.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLiteError } from '../../errors.js';
import type { TaskState } from '../../protocol/states.js';
import type { Part, Task, TaskEvent, TaskMessage } from '../../model/task.js';
import { eventToV03, messageFromV03, messageToV03, partToV03, stateToV03, statusUpdateToV03, taskToV03 } from './v03.js';

const AT = '2026-01-02T03:04:05.000Z';

const makeMessage = (overrides: Partial<TaskMessage> = {}): TaskMessage => ({
  messageId: 'm1',
  role: 'user',
  parts: [{ kind: 'text', text: 'hi' }],
  ...overrides,
});

const makeTask = (overrides: Partial<Task> = {}): Task => ({
  id: 't1',
  contextId: 'c1',
  status: { state: 'working', timestamp: AT },
  history: [makeMessage({ taskId: 't1', contextId: 'c1' })],
  artifacts: [],
  ...overrides,
});

describe('states in 0.3', () => {
  const table: [TaskState, string, boolean][] = [
    ['submitted', 'submitted', false],
    ['accepted', 'submitted', false],
    ['working', 'working', false],
    ['input-required', 'input-required', true],
    ['auth-required', 'auth-required', true],
    ['completed', 'completed', true],
    ['failed', 'failed', true],
    ['cancelled', 'canceled', true],
    ['rejected', 'rejected', true],
  ];
  it.each(table)('%s is "%s" (final: %s)', (state, wire, final) => {
    expect(stateToV03(state)).toBe(wire);
    expect(statusUpdateToV03('t-1', 'c-1', { state, timestamp: '2026-01-01T00:00:00.000Z' }).final).toBe(final);
  });
});

describe('parts to 0.3', () => {
  const table: [string, Part, Record<string, unknown>][] = [
    ['text, its media type dropped', { kind: 'text', text: 'hi', mediaType: 'text/plain' }, { kind: 'text', text: 'hi' }],
    [
      'inline file',
      { kind: 'file', name: 'a.png', mediaType: 'image/png', bytes: 'iVBO' },
      { kind: 'file', file: { bytes: 'iVBO', mimeType: 'image/png', name: 'a.png' } },
    ],
    ['file by URL', { kind: 'file', url: 'https://x.test/a.pdf' }, { kind: 'file', file: { uri: 'https://x.test/a.pdf' } }],
    ['file known only by name', { kind: 'file', name: 'notes.txt' }, { kind: 'text', text: '[attachment: notes.txt]' }],
    ['data object', { kind: 'data', data: { k: 1 } }, { kind: 'data', data: { k: 1 } }],
    ['data array, wrapped', { kind: 'data', data: [1, 2] }, { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } }],
    ['data null, wrapped', { kind: 'data', data: null, metadata: { a: 1 } }, { kind: 'data', data: { value: null }, metadata: { a: 1, data_part_compat: true } }],
    ['metadata kept', { kind: 'text', text: 'x', metadata: { a: 1 } }, { kind: 'text', text: 'x', metadata: { a: 1 } }],
  ];
  it.each(table)('%s', (_name, part, expected) => {
    expect(partToV03(part)).toEqual(expected);
  });
});

describe('tasks and events to 0.3', () => {
  it('writes a task with kind, kebab-case state and kind on every message', () => {
    const task = makeTask({
      status: { state: 'cancelled', timestamp: AT },
      artifacts: [{ artifactId: 'a1', name: 'result', parts: [{ kind: 'text', text: 'done' }] }],
    });
    expect(taskToV03(task)).toEqual({
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: { state: 'canceled', timestamp: AT },
      history: [{ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], contextId: 'c1', taskId: 't1' }],
      artifacts: [{ artifactId: 'a1', name: 'result', parts: [{ kind: 'text', text: 'done' }] }],
    });
  });

  const history = [makeMessage({ messageId: 'a' }), makeMessage({ messageId: 'b', role: 'agent' }), makeMessage({ messageId: 'c' })];
  const lengths: [number | undefined, string[]][] = [
    [undefined, ['a', 'b', 'c']],
    [0, []],
    [1, ['c']],
    [2, ['b', 'c']],
    [9, ['a', 'b', 'c']],
  ];
  it.each(lengths)('historyLength %s keeps %j', (length, ids) => {
    const out = taskToV03(makeTask({ history }), length);
    expect(((out.history ?? []) as { messageId: string }[]).map((m) => m.messageId)).toEqual(ids);
  });

  const question = makeMessage({ messageId: 'q', role: 'agent', parts: [{ kind: 'text', text: 'which?' }] });
  const events: [string, TaskEvent, Record<string, unknown>][] = [
    ['a task', { kind: 'task', task: makeTask({ history: [] }) }, { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'working', timestamp: AT } }],
    ['a message', { kind: 'message', message: question }, { kind: 'message', messageId: 'q', role: 'agent', parts: [{ kind: 'text', text: 'which?' }] }],
    [
      'a working update',
      { kind: 'status', taskId: 't1', contextId: 'c1', status: { state: 'working', timestamp: AT } },
      { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'working', timestamp: AT }, final: false },
    ],
    [
      'a question, which closes the stream',
      { kind: 'status', taskId: 't1', contextId: 'c1', status: { state: 'input-required', message: question, timestamp: AT } },
      {
        kind: 'status-update',
        taskId: 't1',
        contextId: 'c1',
        status: { state: 'input-required', message: messageToV03(question), timestamp: AT },
        final: true,
      },
    ],
    [
      'the end',
      { kind: 'status', taskId: 't1', contextId: 'c1', status: { state: 'completed', timestamp: AT } },
      { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'completed', timestamp: AT }, final: true },
    ],
    [
      'an artifact',
      { kind: 'artifact', taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a1', parts: [{ kind: 'text', text: 'r' }] }, append: false, lastChunk: true },
      { kind: 'artifact-update', taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a1', parts: [{ kind: 'text', text: 'r' }] }, append: false, lastChunk: true },
    ],
  ];
  it.each(events)('writes %s', (_name, event, expected) => {
    expect(eventToV03(event)).toEqual(expected);
  });
});

describe('messages from 0.3', () => {
  const table: [string, unknown, TaskMessage][] = [
    [
      'a text message',
      { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], contextId: 'c1', taskId: 't1' },
      makeMessage({ contextId: 'c1', taskId: 't1' }),
    ],
    ['a message without kind', { messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] }, makeMessage()],
    [
      'inline bytes, normalized to the standard alphabet',
      { messageId: 'm1', role: 'user', parts: [{ kind: 'file', file: { bytes: '-_8', mimeType: 'image/png', name: 'a.png' } }] },
      makeMessage({ parts: [{ kind: 'file', bytes: '+/8=', mediaType: 'image/png', name: 'a.png' }] }),
    ],
    [
      'a file by URI',
      { messageId: 'm1', role: 'user', parts: [{ kind: 'file', file: { uri: 'https://x.test/a' } }] },
      makeMessage({ parts: [{ kind: 'file', url: 'https://x.test/a' }] }),
    ],
    [
      'a data part with metadata',
      { messageId: 'm1', role: 'user', parts: [{ kind: 'data', data: { k: [1] }, metadata: { a: 1 } }], metadata: { skill: 'x' } },
      makeMessage({ parts: [{ kind: 'data', data: { k: [1] }, metadata: { a: 1 } }], metadata: { skill: 'x' } }),
    ],
    [
      'a wrapped data value, unwrapped',
      { messageId: 'm1', role: 'user', parts: [{ kind: 'data', data: { value: 'plain' }, metadata: { data_part_compat: true } }] },
      makeMessage({ parts: [{ kind: 'data', data: 'plain' }] }),
    ],
    [
      'reference task ids',
      { messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], referenceTaskIds: ['t0'], extensions: ['https://x.test/e'] },
      makeMessage({ referenceTaskIds: ['t0'] }),
    ],
  ];
  it.each(table)('reads %s', (_name, input, expected) => {
    expect(messageFromV03(input)).toEqual(expected);
  });

  const ok = { messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };
  const withPart = (part: unknown) => ({ ...ok, parts: [part] });
  const malformed: [string, unknown, string][] = [
    ['not an object', 'hi', 'message must be an object'],
    ['an array', [ok], 'message must be an object'],
    ['another kind', { ...ok, kind: 'task' }, 'message.kind must be "message"'],
    ['no messageId', { ...ok, messageId: undefined }, 'message.messageId is required'],
    ['an empty messageId', { ...ok, messageId: '' }, 'message.messageId is required'],
    ['a 1.0 role', { ...ok, role: 'ROLE_USER' }, 'message.role must be "user" or "agent"'],
    ['no parts', { ...ok, parts: [] }, 'message.parts must be a non-empty array'],
    ['parts not an array', { ...ok, parts: { kind: 'text' } }, 'message.parts must be a non-empty array'],
    ['a part that is not an object', withPart('hi'), 'message.parts[0] must be an object'],
    ['a part without kind (1.0 shape)', withPart({ text: 'hi' }), 'message.parts[0].kind must be "text", "file" or "data"'],
    ['text that is not a string', withPart({ kind: 'text', text: 3 }), 'message.parts[0].text must be a string'],
    ['a file part without file', withPart({ kind: 'file' }), 'message.parts[0].file must be an object'],
    ['a file with bytes and uri', withPart({ kind: 'file', file: { bytes: 'AA==', uri: 'https://x.test' } }), 'message.parts[0].file must hold exactly one of bytes, uri'],
    ['a file with neither', withPart({ kind: 'file', file: { name: 'a' } }), 'message.parts[0].file must hold exactly one of bytes, uri'],
    ['bytes that are not base64', withPart({ kind: 'file', file: { bytes: 'not base64!' } }), 'message.parts[0].file.bytes must be base64'],
    ['an empty uri', withPart({ kind: 'file', file: { uri: '' } }), 'message.parts[0].file.uri must be a non-empty string'],
    ['a mimeType that is not a string', withPart({ kind: 'file', file: { uri: 'https://x.test', mimeType: 1 } }), 'message.parts[0].file.mimeType must be a string'],
    ['data that is not an object', withPart({ kind: 'data', data: [1] }), 'message.parts[0].data must be an object'],
    ['part metadata that is not an object', withPart({ kind: 'text', text: 'hi', metadata: 'x' }), 'message.parts[0].metadata must be an object'],
    ['message metadata that is not an object', { ...ok, metadata: [] }, 'message.metadata must be an object'],
    ['a contextId that is not a string', { ...ok, contextId: 7 }, 'message.contextId must be a string'],
    ['referenceTaskIds that are not strings', { ...ok, referenceTaskIds: [1] }, 'message.referenceTaskIds must be an array of strings'],
  ];
  it.each(malformed)('refuses %s', (_name, input, message) => {
    let caught: unknown;
    try {
      messageFromV03(input);
    } catch (error) {
      caught = error;
    }
    expect(isLiteError(caught, 'INVALID_PARAMS')).toBe(true);
    expect((caught as Error).message).toBe(message);
  });

  it('names the path it was given', () => {
    expect(() => messageFromV03({ ...ok, role: 'x' }, 'params.message')).toThrow('params.message.role must be "user" or "agent"');
  });
});

describe('round trip', () => {
  const metadata = fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }).filter((k) => k !== 'data_part_compat' && k !== '__proto__'), fc.integer(), { minKeys: 1, maxKeys: 2 }), { nil: undefined });
  const withMeta = <T extends object>(part: T, meta: Record<string, unknown> | undefined): T => (meta === undefined ? part : { ...part, metadata: meta });
  const part: fc.Arbitrary<Part> = fc.oneof(
    fc.tuple(fc.string(), metadata).map(([text, meta]) => withMeta({ kind: 'text' as const, text }, meta)),
    fc.tuple(fc.uint8Array({ maxLength: 12 }), fc.constantFrom(undefined, 'a.bin'), metadata).map(([bytes, name, meta]) =>
      withMeta({ kind: 'file' as const, bytes: Buffer.from(bytes).toString('base64'), ...(name ? { name, mediaType: 'application/octet-stream' } : {}) }, meta),
    ),
    fc.tuple(fc.webUrl(), metadata).map(([url, meta]) => withMeta({ kind: 'file' as const, url }, meta)),
    fc.tuple(fc.oneof(fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }).filter((k) => k !== '__proto__'), fc.integer()), fc.array(fc.integer()), fc.string(), fc.constant(null)), metadata).map(([data, meta]) =>
      withMeta({ kind: 'data' as const, data }, meta),
    ),
  );
  const message: fc.Arbitrary<TaskMessage> = fc
    .record({
      messageId: fc.string({ minLength: 1, maxLength: 8 }),
      role: fc.constantFrom('user' as const, 'agent' as const),
      parts: fc.array(part, { minLength: 1, maxLength: 4 }),
      contextId: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
      taskId: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
    })
    .map((m) => {
      const out: TaskMessage = { messageId: m.messageId, role: m.role, parts: m.parts };
      if (m.contextId) out.contextId = m.contextId;
      if (m.taskId) out.taskId = m.taskId;
      return out;
    });

  it('reads back every message it writes', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(messageFromV03(JSON.parse(JSON.stringify(messageToV03(m))))).toEqual(m);
      }),
    );
  });
});
