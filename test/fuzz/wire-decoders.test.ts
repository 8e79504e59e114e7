// Fuzzing the readers of what A2A agents answer: 1.0 and 0.3 tasks and stream events, built by
// the writers and then bent out of shape (wrong types, missing members, hostile keys, states,
// parts, nesting), and fed to all four readers. Each gives a well-formed task or event, or
// refuses with INVALID_PARAMS, which the client reports as PEER_ERROR. Nesting stays within
// what the client admits (transport.ts refuses deeper answers before any reader sees them).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventFromV03, eventToV03, taskFromV03, taskToV03 } from '../../src/a2a/wire/v03.js';
import { eventFromV1, eventToV1, taskFromV1, taskToV1 } from '../../src/a2a/wire/v1.js';
import { openTransport } from '../../src/client/open-transport.js';
import { isLiteError } from '../../src/errors.js';
import { isTaskState } from '../../src/protocol/states.js';
import type { Part, Task, TaskEvent, TaskMessage } from '../../src/model/task.js';
import { check } from './expect-fast.js';
import { applyEdits, edits, hostileValue } from './json-mutations.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

const AT = '2026-01-02T03:04:05.000Z';
const parts: Part[] = [
  { kind: 'text', text: 'hi', metadata: { a: 1 } },
  { kind: 'file', name: 'a.png', mediaType: 'image/png', bytes: 'iVBORw0=' },
  { kind: 'file', url: 'https://x.test/a.pdf', name: 'a.pdf' },
  { kind: 'data', data: { k: [1, 2] } },
  { kind: 'data', data: [1, 'two'] },
];
const user: TaskMessage = { messageId: 'm1', role: 'user', parts, taskId: 't1', contextId: 'c1', metadata: { skill: 'x' }, referenceTaskIds: ['t0'] };
const agent: TaskMessage = { messageId: 'm2', role: 'agent', parts: [{ kind: 'text', text: 'working' }], taskId: 't1', contextId: 'c1' };
const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'input-required', message: agent, timestamp: AT },
  history: [user, agent],
  artifacts: [{ artifactId: 'a1', name: 'result', description: 'the result', parts, metadata: { n: 1 } }],
  metadata: { m: true },
};
const events: TaskEvent[] = [
  { kind: 'task', task },
  { kind: 'message', message: agent },
  { kind: 'status', taskId: 't1', contextId: 'c1', status: { state: 'working', timestamp: AT } },
  { kind: 'artifact', taskId: 't1', contextId: 'c1', artifact: task.artifacts[0]!, append: true, lastChunk: false },
];

const written: unknown[] = [
  taskToV1(task),
  ...events.map(eventToV1),
  taskToV03(task),
  ...events.map(eventToV03),
];

/** Words the readers look for, to put anywhere: member names, kinds, roles, states of both versions. */
const wireValue = fc.oneof(
  { arbitrary: hostileValue, weight: 3 },
  {
    arbitrary: fc.constantFrom(
      'task', 'message', 'status-update', 'artifact-update', 'text', 'file', 'data', 'user', 'agent', 'ROLE_USER', 'ROLE_AGENT', 1, 2, 3,
      'TASK_STATE_WORKING', 'TASK_STATE_UNSPECIFIED', 'TASK_STATE_CANCELED', 'canceled', 'cancelled', 'submitted', 'accepted', 'unknown',
      'not base64!', 'AAAA', '====', '', { value: 1 }, { data_part_compat: true }, { text: 'x' }, { raw: 'AAAA' }, { url: '' }, { bytes: 'x', uri: 'y' },
    ),
    weight: 2,
  },
);

const answer = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom(...written), edits(250, 64, wireValue)).map(([value, list]) => applyEdits(value, list)), weight: 9 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
);

function expectMessage(message: TaskMessage): void {
  check(typeof message.messageId === 'string' && message.messageId !== '' && (message.role === 'user' || message.role === 'agent'), 'a message has an id and a role', message);
  check(Array.isArray(message.parts) && message.parts.length > 0, 'a message has parts', message);
  for (const part of message.parts) check(part.kind === 'text' ? typeof part.text === 'string' : part.kind === 'file' || part.kind === 'data', 'a part has a kind', part);
}

function expectTask(value: Task): void {
  check(typeof value.id === 'string' && value.id !== '' && typeof value.contextId === 'string', 'a task has an id', value);
  check(isTaskState(value.status.state) && typeof value.status.timestamp === 'string', 'a task has a state', value.status);
  if (value.status.message !== undefined) expectMessage(value.status.message);
  value.history.forEach(expectMessage);
  for (const artifact of value.artifacts) check(typeof artifact.artifactId === 'string' && Array.isArray(artifact.parts), 'an artifact has parts', artifact);
}

function expectEvent(event: TaskEvent): void {
  if (event.kind === 'task') expectTask(event.task);
  else if (event.kind === 'message') expectMessage(event.message);
  else check(typeof event.taskId === 'string' && event.taskId !== '', 'an update names its task', event);
  if (event.kind === 'status') check(isTaskState(event.status.state), 'a status update has a state', event);
}

const READERS: [string, (value: unknown) => void][] = [
  ['taskFromV1', (value) => expectTask(taskFromV1(value))],
  ['eventFromV1', (value) => expectEvent(eventFromV1(value))],
  ['taskFromV03', (value) => expectTask(taskFromV03(value))],
  ['eventFromV03', (value) => expectEvent(eventFromV03(value))],
];

describe('the client before the wire readers', () => {
  // The readers quote a bad state or kind in their refusal, and JSON.stringify recurses: the
  // client refuses an answer nested deeper than it admits before any reader sees it.
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  it.each([
    ['1.0', 'JSONRPC', `{"jsonrpc":"2.0","id":${deep},"result":{}}`],
    ['1.0', 'JSONRPC', `{"jsonrpc":"2.0","id":1,"result":{"id":"t","status":{"state":${deep}}}}`],
    ['1.0', 'HTTP+JSON', `{"id":"t","status":{"state":${deep}}}`],
    ['0.3', 'JSONRPC', `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","status":{"state":${deep}}}}`],
  ] as const)('%s %s: an answer nested 5,000 deep is PEER_ERROR', async (version, binding, body) => {
    const fetch = async (): Promise<Response> => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    const transport = openTransport({ url: 'http://127.0.0.1:9/a2a', binding, version }, { fetch });
    await expect(transport.getTask('t')).rejects.toMatchObject({ code: 'PEER_ERROR', message: expect.stringContaining('nests deeper than') });
  });
});

describe('fuzz: the wire readers', () => {
  it(
    'read any answer into a well-formed task or event, or refuse it with INVALID_PARAMS',
    () =>
      fuzzTarget('wire readers, 1.0 and 0.3', () => {
        fc.assert(
          fc.property(answer, (value) => {
            for (const [name, read] of READERS) {
              try {
                read(value);
              } catch (error) {
                if (!isLiteError(error, 'INVALID_PARAMS')) expect.fail(`${name} threw ${String(error)}`);
              }
            }
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );
});
