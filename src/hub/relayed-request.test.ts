// The hub's reading of a relayed request against the agent's: hostile requests (slashes, repeated
// and escaped keys, aliases, decoys, odd key order, a nested method name) are read by the hub,
// then served by a real A2A handler both as they came and as the hub forwards them. All three
// readings must name the same task, and what the hub forwards must leave a plain JSON reader
// nothing else to find.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createA2AHandler } from '../a2a/server/handler.js';
import type { HttpRequest } from '../net/http-types.js';
import { mexicoCard } from '../card/examples.js';
import { LiteError } from '../errors.js';
import type { TaskMessage } from '../model/task.js';
import type { Agent } from '../runtime/agent.js';
import { forwardedBody, readRelayed } from './relayed-request.js';

/** An agent that notes the task each call names, then answers that there is none. */
function recordingAgent(seen: string[]): Agent {
  const missing = (id: string | undefined): never => {
    seen.push(id ?? '(new)');
    throw new LiteError('TASK_NOT_FOUND', 'no such task');
  };
  return {
    card: mexicoCard(),
    answer: (message: TaskMessage) => missing(message.taskId),
    send: (message: TaskMessage) => missing(message.taskId),
    stream: (message: TaskMessage) => missing(message.taskId),
    getTask: missing,
    cancel: missing,
    subscribe: missing,
    listTasks: () => missing('(list)'),
  } as unknown as Agent;
}

const request = (path: string, body: string, method = 'POST'): HttpRequest => ({ method, path, query: new URLSearchParams(), headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body });

/** What a real handler's agent was asked for, serving `req`. */
async function agentReading(req: HttpRequest): Promise<string | undefined> {
  const seen: string[] = [];
  await createA2AHandler({ agent: recordingAgent(seen), baseUrl: 'http://agent.test', push: { save: () => Promise.reject(new Error('no')), get: () => Promise.resolve(undefined), list: () => Promise.resolve([]), delete: () => Promise.resolve(false) } })(req);
  return seen[0];
}

const ids = fc.constantFrom('alice-task', 'bob-task', 'a/b', 'x%41', '');
const key = (name: string): fc.Arbitrary<string> => fc.constantFrom(JSON.stringify(name), JSON.stringify(name).replace(/[a-z]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`));

/** A JSON object written by hand: members in any order, a key maybe escaped, maybe twice. */
const objectText = (members: fc.Arbitrary<[string, string][]>): fc.Arbitrary<string> => members.chain((list) => fc.shuffledSubarray(list, { minLength: list.length }).map((shuffled) => `{${shuffled.map(([k, v]) => `${k}:${v}`).join(',')}}`));

const taskParams = fc.tuple(key('id'), ids, fc.option(fc.tuple(fc.constantFrom('taskId', 'task_id'), ids)), fc.option(ids)).chain(([idKey, id, decoy, repeat]) =>
  objectText(fc.constant([[idKey, JSON.stringify(id)] as [string, string], ...(decoy === null ? [] : [[JSON.stringify(decoy[0]), JSON.stringify(decoy[1])] as [string, string]]), ...(repeat === null ? [] : [[JSON.stringify('id'), JSON.stringify(repeat)] as [string, string]])])),
);

const messageText = fc.tuple(fc.option(ids), fc.option(ids)).chain(([taskId, snake]) =>
  objectText(fc.constant([
    ['"messageId"', '"m1"'],
    ['"role"', '"ROLE_USER"'],
    ['"parts"', '[{"text":"hi"}]'],
    ...(taskId === null ? [] : [['"taskId"', JSON.stringify(taskId)] as [string, string]]),
    ...(snake === null ? [] : [['"task_id"', JSON.stringify(snake)] as [string, string]]),
  ])),
);

const rpcBody = fc.oneof(
  fc.tuple(fc.constantFrom('GetTask', 'CancelTask', 'SubscribeToTask'), taskParams).map(([method, params]) => ({ method, params })),
  messageText.map((message) => ({ method: 'SendMessage', params: `{"message":${message}}` })),
).chain(({ method, params }) =>
  fc.tuple(key('method'), fc.boolean()).chain(([methodKey, nested]) =>
    objectText(fc.constant([
      ['"jsonrpc"', '"2.0"'],
      ['"id"', '1'],
      [methodKey, JSON.stringify(method)],
      // A method name nested in params, placed first, as a text scan would find it.
      ['"params"', nested ? params.replace('{', '{"method":"ListTasks",') : params],
    ])),
  ),
);

describe("the hub's reading of a relayed request", () => {
  it('agrees with the agent, on the request as it came and as the hub forwards it', async () => {
    const read = { task: 0, send: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(rpcBody, fc.constantFrom('/jsonrpc', '/jsonrpc/', '/', '//'), async (body, path) => {
        const asked = request(path, body);
        const relayed = await readRelayed(asked, path);
        const agent = await agentReading(asked);
        if ('answer' in relayed) {
          // Refused by the hub as the agent refuses it: the agent found no task to look at either.
          expect(agent).toBeUndefined();
          read.refused += 1;
          return;
        }
        if (relayed.use?.kind === 'task' || relayed.use?.kind === 'send') read[relayed.use.kind] += 1;
        const hub = relayed.use?.kind === 'task' ? relayed.use.taskId : relayed.use?.kind === 'send' ? relayed.use.message.taskId ?? '(new)' : undefined;
        const forwarded = forwardedBody(relayed, body);
        expect(hub).toBe(agent);
        expect(await agentReading(request(relayed.path, forwarded))).toBe(agent);
        // Nothing left for another reader: no second spelling of the task, no escapes, one "method".
        expect(forwarded).not.toMatch(/task_id|\\u00/);
        const params = (JSON.parse(forwarded) as { params: Record<string, unknown> }).params;
        if (relayed.use?.kind === 'task') expect(Object.keys(params).filter((k) => k === 'taskId' || k === 'id')).toEqual(['id']);
      }),
      { numRuns: 400 },
    );
    // Every kind of reading was tried.
    expect(Math.min(read.task, read.send, read.refused)).toBeGreaterThan(10);
  });

  it('reads a REST path as the agent does, and forwards its canonical form', async () => {
    for (const path of ['/tasks/alice-task', '/tasks/alice-task/', '/tasks/alice%2Dtask', '/tasks/a%2Fb:cancel', '/tasks/a%2Fb:cancel/']) {
      const method = path.includes(':cancel') ? 'POST' : 'GET';
      const asked = request(path, method === 'POST' ? '{"id":"bob-task","taskId":"bob-task"}' : '', method);
      const relayed = await readRelayed(asked, path);
      if ('answer' in relayed) throw new Error(`refused ${path}`);
      const agent = await agentReading(asked);
      expect(relayed.use).toEqual({ kind: 'task', taskId: agent });
      expect(await agentReading(request(relayed.path, forwardedBody(relayed, asked.body), method))).toBe(agent);
    }
  });
});
