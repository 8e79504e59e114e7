// Requests for the official @a2a-js/sdk client, with every field its types require filled in,
// and readers of what it answers.
import { Role, TaskState, type ListTasksRequest, type Message, type SendMessageConfiguration, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client, type ClientConfig } from '@a2a-js/sdk/client';

let counter = 0;

/** A user's text message: a new task's first, or with `taskId` the reply to a task that asked. */
export function userMessage(text: string, taskId = '', contextId = ''): Message {
  return {
    messageId: `sdk-${(counter += 1)}`,
    contextId,
    taskId,
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A send configuration: blocking, no history limit and no webhook unless `options` say so. */
export function sendConfiguration(options: Partial<SendMessageConfiguration> = {}): SendMessageConfiguration {
  return { acceptedOutputModes: [], historyLength: undefined, returnImmediately: false, taskPushNotificationConfig: undefined, ...options };
}

/** A SendMessage request; without a configuration the server's defaults apply (it blocks). */
export function sendRequest(message: Message, configuration?: SendMessageConfiguration): SendMessageRequest {
  return { tenant: '', message, configuration, metadata: undefined };
}

/** A ListTasks request: every task, ten a page, without history or artifacts unless `query` says. */
export function listRequest(query: Partial<ListTasksRequest> = {}): ListTasksRequest {
  return {
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 10,
    pageToken: '',
    historyLength: 0,
    statusTimestampAfter: undefined,
    includeArtifacts: false,
    ...query,
  };
}

/** Sends `text` and waits until the task ends or asks for input. */
export function send(client: Client, text: string, taskId = '', contextId = ''): Promise<Message | Task> {
  return client.sendMessage(sendRequest(userMessage(text, taskId, contextId)));
}

/** Sends `text` without waiting: the task as soon as it exists. */
export async function start(client: Client, text: string): Promise<Task> {
  return asTask(await client.sendMessage(sendRequest(userMessage(text), sendConfiguration({ returnImmediately: true }))));
}

export function asTask(value: Message | Task): Task {
  if ('messageId' in value) throw new Error('expected a task, got a message');
  return value;
}

/** The content of the first part of the task's first artifact. */
export function textOf(task: Task): unknown {
  return task.artifacts[0]?.parts[0]?.content;
}

/** One event of a stream as a short line: `task:<state>`, `status:<state>` or `artifact:<content>`. */
export function describeEvent(event: StreamResponse): string {
  const payload = event.payload;
  if (payload?.$case === 'task') return `task:${TaskState[payload.value.status!.state]}`;
  if (payload?.$case === 'statusUpdate') return `status:${TaskState[payload.value.status!.state]}`;
  if (payload?.$case === 'artifactUpdate') return `artifact:${JSON.stringify(payload.value.artifact?.parts[0]?.content)}`;
  return payload?.$case ?? 'empty';
}

/** Reads a stream to its end, describing each event. */
export async function describeStream(events: AsyncIterable<StreamResponse>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of events) seen.push(describeEvent(event));
  return seen;
}

/** An SDK client for the agent at `url` that speaks JSON-RPC 1.0. */
export function jsonRpcClient(url: string, clientConfig?: ClientConfig): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()], clientConfig });
  return new ClientFactory(options).createFromUrl(url);
}
