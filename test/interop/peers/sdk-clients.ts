// The SDKs' own clients (1.x over JSON-RPC or HTTP+JSON, 0.3.x over JSON-RPC) behind one small
// interface and one plain view of tasks and stream events, so a scenario is written once and
// runs against every peer and transport.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { Message as Message03, Part as Part03, Task as Task03, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-js-sdk-v03';
import { ClientFactory as ClientFactory03, JsonRpcTransportFactory as JsonRpcTransportFactory03 } from 'a2a-js-sdk-v03/client';

/** A task with states spelled the 0.3 way (`input-required`) and parts as strings. */
export interface TaskView {
  id: string;
  contextId: string;
  state: string;
  /** Text of the status message. */
  message?: string;
  /** Each artifact as `name: part | part`, a file part as `file NAME (TYPE) CONTENT`. */
  artifacts: string[];
}

/** A stream as lines such as `status working: step 1 of 3`, and the error that ended it, if any. */
export interface StreamView {
  taskId: string;
  events: string[];
  error?: unknown;
}

export interface OutgoingFile {
  name: string;
  mediaType: string;
  bytes?: Uint8Array;
  url?: string;
}

export interface Ids {
  taskId?: string;
  contextId?: string;
}

export interface PeerClient {
  send(text: string, ids?: Ids, files?: OutgoingFile[]): Promise<TaskView>;
  /** Sends without waiting for the task to end. */
  start(text: string): Promise<TaskView>;
  stream(text: string, ids?: Ids): Promise<StreamView>;
  get(taskId: string): Promise<TaskView>;
  cancel(taskId: string): Promise<TaskView>;
  resubscribe(taskId: string): Promise<StreamView>;
}

const withToken = (token: string | undefined): typeof fetch | undefined =>
  token === undefined ? undefined : (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${token}` } });

async function collect<T>(events: AsyncIterable<T>, line: (event: T) => string, idOf: (event: T) => string): Promise<StreamView> {
  const view: StreamView = { taskId: '', events: [] };
  try {
    for await (const event of events) {
      view.events.push(line(event));
      view.taskId ||= idOf(event);
    }
  } catch (error) {
    view.error = error;
  }
  return view;
}

const fileLine = (name: string, mediaType: string, content: string) => `file ${name} (${mediaType}) ${content}`;

// ---- 1.x ----

const stateV1 = (state: TaskState | undefined) => (TaskState[state ?? 0] ?? '?').replace('TASK_STATE_', '').toLowerCase().replace('_', '-');

const partV1 = (content: Part['content'], filename = '', mediaType = 'text/plain'): Part => ({ content, metadata: undefined, filename, mediaType });

function partLineV1(part: Part): string {
  const content = part.content;
  if (content?.$case === 'text') return content.value;
  if (content?.$case === 'raw') return fileLine(part.filename, part.mediaType, Buffer.from(content.value).toString('utf8'));
  if (content?.$case === 'url') return fileLine(part.filename, part.mediaType, content.value);
  return JSON.stringify(content);
}

const textOfV1 = (message: Message | undefined) => (message === undefined ? undefined : message.parts.map(partLineV1).join(' | '));

function viewV1(task: Task | Message): TaskView {
  if (!('id' in task)) throw new Error(`expected a task, got a message: ${textOfV1(task)}`);
  const message = textOfV1(task.status?.message);
  return {
    id: task.id,
    contextId: task.contextId,
    state: stateV1(task.status?.state),
    ...(message === undefined ? {} : { message }),
    artifacts: task.artifacts.map((artifact) => `${artifact.name}: ${artifact.parts.map(partLineV1).join(' | ')}`),
  };
}

function lineV1(event: StreamResponse): string {
  const payload = event.payload;
  const withText = (text: string | undefined) => (text === undefined ? '' : `: ${text}`);
  switch (payload?.$case) {
    case 'task':
      return `task ${stateV1(payload.value.status?.state)}`;
    case 'statusUpdate':
      return `status ${stateV1(payload.value.status?.state)}${withText(textOfV1(payload.value.status?.message))}`;
    case 'artifactUpdate':
      return `artifact ${payload.value.artifact?.name}: ${payload.value.artifact?.parts.map(partLineV1).join(' | ')}`;
    case 'message':
      return `message${withText(textOfV1(payload.value))}`;
    default:
      return 'empty';
  }
}

const idOfV1 = (event: StreamResponse) =>
  event.payload?.$case === 'task' ? event.payload.value.id : event.payload?.$case === 'statusUpdate' ? event.payload.value.taskId : '';

/** The 1.x client on the peer's JSON-RPC or HTTP+JSON interface. */
export async function clientV1(url: string, binding: 'JSONRPC' | 'HTTP+JSON', token?: string): Promise<PeerClient> {
  const fetchImpl = withToken(token);
  const transport = binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });
  const client = await new ClientFactory({ transports: [transport] }).createFromUrl(url);
  const message = (text: string, ids: Ids = {}, files: OutgoingFile[] = []): Message => ({
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [
      partV1({ $case: 'text', value: text }),
      ...files.map((file) =>
        partV1(file.url === undefined ? { $case: 'raw', value: Buffer.from(file.bytes ?? []) } : { $case: 'url', value: file.url }, file.name, file.mediaType),
      ),
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const request = (msg: Message, returnImmediately = false) => ({
    tenant: '',
    message: msg,
    configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately, taskPushNotificationConfig: undefined },
    metadata: undefined,
  });
  return {
    send: async (text, ids, files) => viewV1(await client.sendMessage(request(message(text, ids, files)))),
    start: async (text) => viewV1(await client.sendMessage(request(message(text), true))),
    stream: (text, ids) => collect(client.sendMessageStream(request(message(text, ids))), lineV1, idOfV1),
    get: async (id) => viewV1(await client.getTask({ tenant: '', id })),
    cancel: async (id) => viewV1(await client.cancelTask({ tenant: '', id, metadata: undefined })),
    resubscribe: (id) => collect(client.resubscribeTask({ tenant: '', id }), lineV1, idOfV1),
  };
}

// ---- 0.3 ----

type StreamEvent03 = Message03 | Task03 | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

function partLine03(part: Part03): string {
  if (part.kind === 'text') return part.text;
  if (part.kind === 'data') return JSON.stringify(part.data);
  const { name = '', mimeType = '' } = part.file;
  return 'bytes' in part.file ? fileLine(name, mimeType, Buffer.from(part.file.bytes, 'base64').toString('utf8')) : fileLine(name, mimeType, part.file.uri);
}

const textOf03 = (message: Message03 | undefined) => (message === undefined ? undefined : message.parts.map(partLine03).join(' | '));

function view03(task: Task03 | Message03): TaskView {
  if (task.kind !== 'task') throw new Error(`expected a task, got a message: ${textOf03(task)}`);
  const message = textOf03(task.status.message);
  return {
    id: task.id,
    contextId: task.contextId,
    state: task.status.state,
    ...(message === undefined ? {} : { message }),
    artifacts: (task.artifacts ?? []).map((artifact) => `${artifact.name}: ${artifact.parts.map(partLine03).join(' | ')}`),
  };
}

function line03(event: StreamEvent03): string {
  const withText = (text: string | undefined) => (text === undefined ? '' : `: ${text}`);
  switch (event.kind) {
    case 'task':
      return `task ${event.status.state}`;
    case 'status-update':
      return `status ${event.status.state}${withText(textOf03(event.status.message))}`;
    case 'artifact-update':
      return `artifact ${event.artifact.name}: ${event.artifact.parts.map(partLine03).join(' | ')}`;
    case 'message':
      return `message${withText(textOf03(event))}`;
  }
}

const idOf03 = (event: StreamEvent03) => (event.kind === 'task' ? event.id : event.kind === 'message' ? '' : event.taskId);

/** The 0.3 client on the peer's JSON-RPC interface. */
export async function clientV03(url: string, token?: string): Promise<PeerClient> {
  const client = await new ClientFactory03({ transports: [new JsonRpcTransportFactory03({ fetchImpl: withToken(token) })] }).createFromUrl(url);
  const message = (text: string, ids: Ids = {}, files: OutgoingFile[] = []): Message03 => ({
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    ...(ids.taskId === undefined ? {} : { taskId: ids.taskId }),
    ...(ids.contextId === undefined ? {} : { contextId: ids.contextId }),
    parts: [
      { kind: 'text', text },
      ...files.map((file): Part03 => ({
        kind: 'file',
        file:
          file.url === undefined
            ? { name: file.name, mimeType: file.mediaType, bytes: Buffer.from(file.bytes ?? []).toString('base64') }
            : { name: file.name, mimeType: file.mediaType, uri: file.url },
      })),
    ],
  });
  return {
    send: async (text, ids, files) => view03(await client.sendMessage({ message: message(text, ids, files) })),
    start: async (text) => view03(await client.sendMessage({ message: message(text), configuration: { blocking: false } })),
    stream: (text, ids) => collect(client.sendMessageStream({ message: message(text, ids) }), line03, idOf03),
    get: async (id) => view03(await client.getTask({ id })),
    cancel: async (id) => view03(await client.cancelTask({ id })),
    resubscribe: (id) => collect(client.resubscribeTask({ id }), line03, idOf03),
  };
}
