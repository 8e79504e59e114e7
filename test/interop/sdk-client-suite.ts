// What the official @a2a-js/sdk client must be able to do with our server over any transport:
// each transport's test file opens a session and runs these scenarios next to its own tests.
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLiteServer, type LiteServer, type LiteServerOptions } from './lite-server.js';
import { asTask, describeStream, listRequest, send, sendConfiguration, sendRequest, start, textOf, userMessage } from './sdk-requests.js';

export interface SdkSession {
  readonly server: LiteServer;
  readonly client: Client;
}

export interface SdkClientSuiteOptions {
  /** The transport has tasks/list (A2A 0.3 had none over JSON-RPC). */
  lists: boolean;
  /**
   * A subscription stays open while the task waits for input (1.0, §3.1.6); 0.3 streams end at
   * the `final` update the input-required status is.
   */
  subscribesThroughInput: boolean;
}

/**
 * Starts our server before the file's tests and connects the client `connect` makes; closes the
 * server after them. The session's fields can be read once the tests run.
 */
export function sdkSession(connect: (server: LiteServer) => Promise<Client>, serverOptions: LiteServerOptions = {}): SdkSession {
  let server: LiteServer | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    server = await startLiteServer(serverOptions);
    client = await connect(server);
  });
  afterAll(async () => {
    server?.release();
    await server?.close();
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the server starts in beforeAll');
      return server;
    },
    get client() {
      if (client === undefined) throw new Error('the client connects in beforeAll');
      return client;
    },
  };
}

/** Lets a task started without waiting get going, or a subscription reach the server. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stateOf = (task: Task) => TaskState[task.status!.state];

/**
 * Adds the scenarios every transport shares to the enclosing `describe`: blocking and streamed
 * sends, get, list, questions, cancel and resubscribe, with the errors the SDK names.
 *
 * @example
 * const session = sdkSession((server) => jsonRpcClient(server.url));
 * describe('the SDK client over JSON-RPC', () => sdkClientSuite(session, { lists: true, subscribesThroughInput: true }));
 */
export function sdkClientSuite(session: SdkSession, options: SdkClientSuiteOptions): void {
  it('sends a blocking message and gets the completed task', async () => {
    const task = asTask(await send(session.client, 'hello'));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: hello' });
    // The agent's words while working, then the result said again on the final status.
    expect(task.history.map((m) => Role[m.role])).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_AGENT']);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: hello' });
  });

  it('honours historyLength in the send configuration', async () => {
    const task = asTask(await session.client.sendMessage(sendRequest(userMessage('short'), sendConfiguration({ historyLength: 1 }))));
    expect(task.history).toHaveLength(1);
    expect(Role[task.history[0]!.role]).toBe('ROLE_AGENT');
  });

  it('streams the task, its updates and its artifact, in order', async () => {
    expect(await describeStream(session.client.sendMessageStream(sendRequest(userMessage('stream me'))))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:{"$case":"text","value":"echo: stream me"}',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('ends a stream at a question', async () => {
    expect(await describeStream(session.client.sendMessageStream(sendRequest(userMessage('ask in a stream'))))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_INPUT_REQUIRED',
    ]);
  });

  it('gets a task, with historyLength', async () => {
    const task = asTask(await send(session.client, 'for get'));
    const got = await session.client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
    expect(stateOf(got)).toBe('TASK_STATE_COMPLETED');
  });

  if (options.lists) {
    it('lists the tasks of a context, with or without a state filter, history and artifacts', async () => {
      const { client } = session;
      const task = asTask(await send(client, 'for list'));
      const all = await client.listTasks(listRequest({ contextId: task.contextId }));
      expect(all.tasks.map((t) => t.id)).toEqual([task.id]);
      expect(all.totalSize).toBe(1);
      expect(all.nextPageToken).toBe('');
      const completed = await client.listTasks(listRequest({ contextId: task.contextId, status: TaskState.TASK_STATE_COMPLETED, includeArtifacts: true }));
      expect(completed.tasks.map((t) => t.id)).toEqual([task.id]);
      expect(completed.tasks[0]?.history).toEqual([]);
      expect(completed.tasks[0]?.artifacts).toHaveLength(1);
      expect(completed.totalSize).toBe(1);
      expect(completed.pageSize).toBe(10);
      expect(completed.nextPageToken).toBe('');
    });

    it('lists a task the agent has only accepted under TASK_STATE_SUBMITTED, the state it shows (§3.1.4)', async () => {
      const { client } = session;
      const task = await start(client, 'accept, then wait');
      let got = task;
      while (got.status?.message?.parts[0]?.content?.$case !== 'text') {
        await pause(10);
        got = await client.getTask({ tenant: '', id: task.id, historyLength: 0 });
      }
      expect(stateOf(got)).toBe('TASK_STATE_SUBMITTED');
      const submitted = await client.listTasks(listRequest({ contextId: task.contextId, status: TaskState.TASK_STATE_SUBMITTED }));
      expect(submitted.tasks.map((t) => [t.id, stateOf(t)])).toEqual([[task.id, 'TASK_STATE_SUBMITTED']]);
      expect(submitted.totalSize).toBe(1);
      expect((await client.listTasks(listRequest({ contextId: task.contextId, status: TaskState.TASK_STATE_WORKING }))).tasks).toEqual([]);
      await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    });

    it('pages through the task list with the tokens it hands out', async () => {
      const first = await session.client.listTasks(listRequest({ pageSize: 2 }));
      expect(first.tasks).toHaveLength(2);
      expect(first.nextPageToken).not.toBe('');
      const second = await session.client.listTasks(listRequest({ pageSize: 2, pageToken: first.nextPageToken }));
      expect(second.tasks.map((t) => t.id)).not.toContain(first.tasks[0]?.id);
    });
  }

  it('answers a question asked with input-required in the same task', async () => {
    const asked = asTask(await send(session.client, 'ask me'));
    expect(stateOf(asked)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.status!.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'which time range?' });
    const done = asTask(await send(session.client, 'last week', asked.id, asked.contextId));
    expect(done.id).toBe(asked.id);
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    expect(textOf(done)).toEqual({ $case: 'text', value: 'research over last week' });
  });

  it('returns at once when not blocking, then cancels the running task, and again', async () => {
    const { client } = session;
    const running = await start(client, 'wait for me');
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateOf(running));
    const cancelled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(stateOf(cancelled)).toBe('TASK_STATE_CANCELED');
    const got = await client.getTask({ tenant: '', id: running.id, historyLength: undefined });
    expect(stateOf(got)).toBe('TASK_STATE_CANCELED');
    const again = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(stateOf(again)).toBe('TASK_STATE_CANCELED');
  });

  it('refuses to cancel an ended task, and to find a task that does not exist', async () => {
    const { client } = session;
    const ended = asTask(await send(client, 'quick'));
    await expect(client.cancelTask({ tenant: '', id: ended.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
    await expect(client.getTask({ tenant: '', id: 'nope', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(client.cancelTask({ tenant: '', id: 'nope', metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(send(client, 'x', 'nope')).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('resubscribes to a running task and follows it to the end', async () => {
    const running = await start(session.client, 'wait a bit');
    await pause(20);
    const follow = describeStream(session.client.resubscribeTask({ tenant: '', id: running.id }));
    await pause(50);
    session.server.release();
    expect(await follow).toEqual(['task:TASK_STATE_WORKING', 'artifact:{"$case":"text","value":"echo: wait a bit"}', 'status:TASK_STATE_COMPLETED']);
  });

  it(`${options.subscribesThroughInput ? 'keeps a resubscription to a task waiting for input open, and sees it end after the answer' : 'ends a resubscription to a task waiting for input with its final update'}`, async () => {
    const asked = asTask(await send(session.client, 'ask me'));
    expect(stateOf(asked)).toBe('TASK_STATE_INPUT_REQUIRED');
    const follow = describeStream(session.client.resubscribeTask({ tenant: '', id: asked.id }));
    await pause(50);
    const answered = asTask(await send(session.client, 'last week', asked.id));
    expect(stateOf(answered)).toBe('TASK_STATE_COMPLETED');
    const seen = await follow;
    expect(seen[0]).toBe('task:TASK_STATE_INPUT_REQUIRED');
    if (options.subscribesThroughInput) {
      expect(seen.at(-1)).toBe('status:TASK_STATE_COMPLETED');
      expect(seen).toContain('status:TASK_STATE_WORKING');
    } else {
      expect(seen.at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
    }
  });

  it('gets a direct answer as a Message, with no task, blocking and streamed (§3.1.1)', async () => {
    const answer = await send(session.client, 'answer directly: who are you?');
    expect('parts' in answer && !('status' in answer)).toBe(true);
    expect((answer as { parts: { content: unknown }[] }).parts[0]?.content).toEqual({ $case: 'text', value: 'direct answer to: answer directly: who are you?' });
    expect(Role[(answer as { role: Role }).role]).toBe('ROLE_AGENT');
    const streamed: string[] = [];
    for await (const event of session.client.sendMessageStream(sendRequest(userMessage('answer directly, in a stream')))) streamed.push(event.payload?.$case ?? 'empty');
    expect(streamed).toEqual(['message']);
    // Anything else still becomes a task.
    expect(stateOf(asTask(await send(session.client, 'a real task')))).toBe('TASK_STATE_COMPLETED');
  });

  it('receives an artifact in chunks and the final words on the status', async () => {
    const chunks: [unknown, boolean, boolean][] = [];
    let final: unknown;
    for await (const event of session.client.sendMessageStream(sendRequest(userMessage('chunks please')))) {
      const payload = event.payload;
      if (payload?.$case === 'artifactUpdate') chunks.push([payload.value.artifact?.parts[0]?.content, payload.value.append, payload.value.lastChunk]);
      if (payload?.$case === 'statusUpdate') final = payload.value.status?.message?.parts[0]?.content;
    }
    expect(chunks).toEqual([
      [{ $case: 'text', value: 'one ' }, false, false],
      [{ $case: 'text', value: 'two' }, true, true],
    ]);
    expect(final).toEqual({ $case: 'text', value: 'drafted in two chunks' });
  });

  it('refuses to resubscribe to an ended task', async () => {
    const ended = asTask(await send(session.client, 'over'));
    await expect(describeStream(session.client.resubscribeTask({ tenant: '', id: ended.id }))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });
}
