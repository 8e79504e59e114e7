// The official @a2a-js/sdk client calling agents through the hub, as real processes on
// 127.0.0.1: a hub and three `serve --hub` agents that dialled out to it (two with no listening
// port at all), reached at <hub>/agents/<id> over 1.0 JSON-RPC, 1.0 HTTP+JSON and 0.3.
import { TaskState, type Task } from '@a2a-js/sdk';
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { describe, expect, it } from 'vitest';
import { asTask, describeStream, send, sendRequest, start, textOf, userMessage } from '../interop/sdk-requests.js';
import { getJson, startAgent, startHub, until } from './hub-processes.js';

let hubUrl = '';
let alpha: Awaited<ReturnType<typeof startAgent>>;
let beta: Awaited<ReturnType<typeof startAgent>>;

// The helpers kill every process after each test, so each test starts its own network.
async function network(): Promise<void> {
  const hub = await startHub();
  hubUrl = hub.url;
  // It takes files larger than serve's default body limit, and says so: the hub carries them whole.
  alpha = await startAgent(hubUrl, 'alpha', { extra: ['--port', 'none', '--max-body', String(16 * 1024 * 1024)] });
  beta = await startAgent(hubUrl, 'beta', { extra: ['--port', '0'] });
  await startAgent(hubUrl, 'gamma');
  await until(async () => ((await getJson(`${hubUrl}/hub/v1/agents`)).body.agents as unknown[]).length === 3 || undefined, 15_000, 'three agents registered');
}

const state = (task: Task): string => TaskState[task.status!.state];

type Connect = (agentUrl: string) => Promise<Client>;

const CLIENTS: [string, Connect][] = [
  ['1.0 JSON-RPC', (url) => new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] })).createFromUrl(url)],
  ['1.0 HTTP+JSON', (url) => new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(url)],
  [
    '0.3 JSON-RPC',
    async (url) => {
      // The card a 0.3 client gets (it says so): the one with the 0.3 `url`.
      const raw = (await (await fetch(new URL('.well-known/agent-card.json', url), { headers: { 'A2A-Version': '0.3' } })).json()) as { url: string };
      const card = await new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).resolve(url);
      return new Client(new LegacyJsonRpcTransport({ endpoint: raw.url }), card);
    },
  ],
];

describe('agents behind the hub, called by the official SDK client', () => {
  it('lists three connected agents, publishes each card pointing at the hub, and keeps a connected agent with a port of its own reachable both ways', async () => {
    await network();
    const { body } = await getJson(`${hubUrl}/hub/v1/agents`);
    const agents = body.agents as { id: string; kind: string; connected: boolean; health: { up: boolean } }[];
    expect(agents.map((a) => [a.id, a.kind, a.connected, a.health.up])).toEqual([
      ['alpha', 'connected', true, true],
      ['beta', 'connected', true, true],
      ['gamma', 'connected', true, true],
    ]);
    const card = (await getJson(`${hubUrl}/agents/alpha/.well-known/agent-card.json`, { 'a2a-version': '1.0' })).body;
    expect((card.supportedInterfaces as { url: string }[]).map((i) => i.url)).toEqual([`${hubUrl}/agents/alpha/jsonrpc`, `${hubUrl}/agents/alpha`, `${hubUrl}/agents/alpha/jsonrpc`]);
    expect(beta.info.listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(alpha.info.listening).toBe('none');
    expect(alpha.info.url).toBe(`${hubUrl}/agents/alpha`);
    // beta answers on its own port too.
    const direct = await new ClientFactory().createFromUrl(beta.info.listening as string);
    expect(state(asTask(await send(direct, 'echo direct')))).toBe('TASK_STATE_COMPLETED');
  });

  for (const [name, connect] of CLIENTS) {
    it(`${name}: sends, streams, gets, resubscribes and cancels through the hub`, async () => {
      await network();
      const client = await connect(`${hubUrl}/agents/gamma/`);
      const done = asTask(await send(client, 'echo through the hub'));
      expect(state(done)).toBe('TASK_STATE_COMPLETED');
      expect(textOf(done)).toEqual({ $case: 'text', value: 'echo: through the hub' });

      const streamed = await describeStream(client.sendMessageStream(sendRequest(userMessage('slow 2'))));
      expect(streamed[0]).toMatch(/^task:/);
      expect(streamed.filter((line) => line === 'status:TASK_STATE_WORKING').length).toBeGreaterThanOrEqual(2);
      expect(streamed.at(-1)).toBe('status:TASK_STATE_COMPLETED');

      const running = await start(client, 'slow 200');
      const got = await client.getTask({ tenant: '', id: running.id, historyLength: undefined });
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(state(got));
      const follow = describeStream(client.resubscribeTask({ tenant: '', id: running.id }));
      await until(async () => (await fetch(`${hubUrl}/hub/v1/tasks?agent=gamma`).then((r) => r.json()) as { tasks: { taskId: string; state: string }[] }).tasks.some((t) => t.taskId === running.id && t.state === 'working') || undefined, 10_000, 'the task working');
      const cancelled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
      expect(state(cancelled)).toBe('TASK_STATE_CANCELED');
      expect((await follow).at(-1)).toBe('status:TASK_STATE_CANCELED');
      await expect(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    });
  }

  it('carries files both ways, and tells the hub of each task it saw', async () => {
    await network();
    const client = await connect10(`${hubUrl}/agents/alpha/`);
    const made = asTask(await send(client, 'file'));
    const part = made.artifacts.flatMap((artifact) => artifact.parts).find((p) => p.filename === 'report.md');
    const content = part?.content;
    const bytes = content?.$case === 'raw' ? Buffer.from(content.value).toString('utf8') : content?.$case === 'url' ? await (await fetch(content.value)).text() : '';
    expect(bytes).toBe('# Report\n\nAgents talk.\n');
    const message = userMessage('files-in');
    message.parts.push({ content: { $case: 'raw', value: Buffer.from('hello') }, filename: 'a.txt', mediaType: 'text/plain', metadata: undefined });
    const received = asTask(await client.sendMessage(sendRequest(message)));
    expect(textOf(received)).toEqual({ $case: 'text', value: 'received: a.txt (5 bytes)' });
    // Larger than serve's default body limit (alpha's is 16 MiB): the hub's posts and streams carry it whole.
    const big = userMessage('files-in');
    big.parts.push({ content: { $case: 'raw', value: Buffer.alloc(6 * 1024 * 1024, 7) }, filename: 'big.bin', mediaType: 'application/octet-stream', metadata: undefined });
    expect(textOf(asTask(await client.sendMessage(sendRequest(big))))).toEqual({ $case: 'text', value: 'received: big.bin (6291456 bytes)' });
    const tasks = (await getJson(`${hubUrl}/hub/v1/tasks?agent=alpha`)).body.tasks as { taskId: string; state: string }[];
    expect(tasks.find((t) => t.taskId === made.id)?.state).toBe('completed');
  });
});

function connect10(url: string): Promise<Client> {
  return (CLIENTS[0] as [string, Connect])[1](url);
}
