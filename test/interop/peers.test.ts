// The SDK peers of test/interop/peers are real A2A servers: the SDKs' own clients (1.x over
// JSON-RPC and HTTP+JSON, 0.3.x over JSON-RPC) and a few raw fetches drive every scripted
// behaviour over HTTP on 127.0.0.1, in A2A 1.0 and 0.3, with and without a bearer token.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../fixtures/webhook.js';
import { REPORT_MARKDOWN } from './peers/behaviour.js';
import { clientV03, clientV1, type PeerClient } from './peers/sdk-clients.js';
import { startSdkPeer, type SdkPeer } from './peers/sdk-peer.js';

type Json = Record<string, unknown>;

let peers: Record<'1.0' | '0.3', SdkPeer>;
const clients = new Map<string, PeerClient>();
const CLIENTS = [
  ['1.0 peer, JSON-RPC', '1.0'],
  ['1.0 peer, HTTP+JSON', '1.0'],
  ['0.3 peer, JSON-RPC', '0.3'],
] as const;

beforeAll(async () => {
  peers = { '1.0': await startSdkPeer({ version: '1.0' }), '0.3': await startSdkPeer({ version: '0.3' }) };
  clients.set('1.0 peer, JSON-RPC', await clientV1(peers['1.0'].url, 'JSONRPC'));
  clients.set('1.0 peer, HTTP+JSON', await clientV1(peers['1.0'].url, 'HTTP+JSON'));
  clients.set('0.3 peer, JSON-RPC', await clientV03(peers['0.3'].url));
});

afterAll(async () => {
  await Promise.all(Object.values(peers).map((peer) => peer.close()));
});

const getJson = async (url: string) => (await (await fetch(url)).json()) as Json;

const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
};

const SKILLS = [
  { id: 'echo', name: 'Echo', tags: ['echo', 'test'] },
  { id: 'email', name: 'Email', tags: ['email', 'send'] },
];

describe('the cards', () => {
  it('1.0: supportedInterfaces lists JSON-RPC, then HTTP+JSON, both protocol 1.0', async () => {
    const card = await getJson(`${peers['1.0'].url}/.well-known/agent-card.json`);
    expect(card).toMatchObject({ name: 'SDK Peer', version: '1.0.0', capabilities: { streaming: true }, defaultInputModes: ['text'], defaultOutputModes: ['text'] });
    expect(card.description).toEqual(expect.any(String));
    expect(card.supportedInterfaces).toEqual([
      { url: `${peers['1.0'].url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${peers['1.0'].url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(card.skills).toMatchObject(SKILLS);
    expect(card).not.toHaveProperty('url');
    expect(card).not.toHaveProperty('securitySchemes');
  });

  it('0.3: one JSON-RPC url, preferredTransport and protocolVersion 0.3.0', async () => {
    const card = await getJson(`${peers['0.3'].url}/.well-known/agent-card.json`);
    expect(card).toMatchObject({
      name: 'SDK Peer',
      protocolVersion: '0.3.0',
      url: `${peers['0.3'].url}/a2a/jsonrpc`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true },
      defaultInputModes: ['text'],
      defaultOutputModes: ['text'],
    });
    expect(card.skills).toMatchObject(SKILLS);
    expect(card).not.toHaveProperty('supportedInterfaces');
  });
});

describe.each(CLIENTS)('%s', (name, version) => {
  const client = () => clients.get(name)!;
  const peer = () => peers[version];

  it('echo: working, then completed with the echoed text, in the requester’s context', async () => {
    const contextId = 'ctx-echo';
    const task = await client().send('echo hello there', { contextId });
    expect(task).toMatchObject({ state: 'completed', contextId, artifacts: ['result: echo: hello there'] });
    const streamed = await client().stream('echo streamed');
    expect(streamed.error).toBeUndefined();
    expect(streamed.events).toEqual(['task submitted', 'status working: working on it', 'artifact result: echo: streamed', 'status completed']);
  });

  it('ask: input-required with the question, then the reply in the same task completes it', async () => {
    const asked = await client().send('ask which year?');
    expect(asked).toMatchObject({ state: 'input-required', message: 'which year?' });
    const answered = await client().send('2024', { taskId: asked.id, contextId: asked.contextId });
    expect(answered).toMatchObject({ id: asked.id, state: 'completed', artifacts: ['result: got: 2024'] });
    const streamedAsk = await client().stream('ask streamed?');
    expect(streamedAsk.events).toEqual(['task submitted', 'status input-required: streamed?']);
    const streamedReply = await client().stream('yes', { taskId: streamedAsk.taskId });
    expect(streamedReply.events).toEqual(['task input-required', 'artifact result: got: yes', 'status completed']);
  });

  it('slow: one working update per step, then done', async () => {
    const streamed = await client().stream('slow 3');
    expect(streamed.events).toEqual([
      'task submitted',
      'status working: step 1 of 3',
      'status working: step 2 of 3',
      'status working: step 3 of 3',
      'artifact result: done after 3 steps',
      'status completed',
    ]);
    expect(await client().send('slow 2')).toMatchObject({ state: 'completed', artifacts: ['result: done after 2 steps'] });
  });

  it('slow: a cancel ends it canceled, and no update follows', async () => {
    const started = await client().start('slow 20');
    const cancelled = await client().cancel(started.id);
    expect(cancelled.state).toBe('canceled');
    expect(peer().cancelled).toContain(started.id);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await client().get(started.id)).toMatchObject({ state: 'canceled', artifacts: [] });
  });

  it('cut: the stream breaks right after step 2; the task completes and can be followed again', async () => {
    const streamed = await client().stream('cut 4');
    expect(streamed.error).toBeDefined();
    expect(streamed.events).toEqual(['task submitted', 'status working: step 1 of 4', 'status working: step 2 of 4']);
    const followed = await client().resubscribe(streamed.taskId);
    expect(followed.events.at(0)).toBe('task working');
    expect(followed.events.slice(-3)).toEqual(['status working: step 4 of 4', 'artifact result: done after 4 steps', 'status completed']);
    expect(await client().get(streamed.taskId)).toMatchObject({ state: 'completed', artifacts: ['result: done after 4 steps'] });
  });

  it('cut: a blocking request is not cut', async () => {
    expect(await client().send('cut 2')).toMatchObject({ state: 'completed', artifacts: ['result: done after 2 steps'] });
  });

  it('cutStreams() breaks every open stream while its task goes on', async () => {
    let ended = false;
    const streaming = client().stream('slow 3').finally(() => (ended = true));
    // Until the SSE response has opened there is nothing to cut, so cut until the stream ends.
    await eventually(() => {
      peer().cutStreams();
      return ended;
    }, 2_000);
    const streamed = await streaming;
    expect(streamed.error).toBeDefined();
    expect(streamed.events).not.toContain('status completed');
    await eventually(async () => (await client().get(streamed.taskId)).state === 'completed', 2_000);
  });

  it('file: an artifact with a text part and an inline markdown file', async () => {
    const task = await client().send('file');
    expect(task).toMatchObject({ state: 'completed', artifacts: [`report: here is the report | file report.md (text/markdown) ${REPORT_MARKDOWN}`] });
  });

  it('files-in: lists the files it got, inline ones with their size', async () => {
    const task = await client().send('files-in', {}, [
      { name: 'a.txt', mediaType: 'text/plain', bytes: new TextEncoder().encode('hello') },
      { name: 'b.pdf', mediaType: 'application/pdf', url: 'https://example.com/b.pdf' },
    ]);
    expect(task.artifacts).toEqual(['result: received: a.txt (5 bytes), b.pdf (url)']);
    expect(await client().send('files-in')).toMatchObject({ artifacts: ['result: received: nothing'] });
  });

  it.each([
    ['fail disk full', { state: 'failed', message: 'disk full' }],
    ['reject', { state: 'rejected', message: 'not my job' }],
    ['auth', { state: 'auth-required', message: 'log in first' }],
    ['dance please', { state: 'completed', artifacts: ['result: unknown: dance please'] }],
  ])('"%s" ends the same way blocking and streaming', async (text, expected) => {
    expect(await client().send(text)).toMatchObject(expected);
    const streamed = await client().stream(text);
    expect(streamed.error).toBeUndefined();
    expect(streamed.events.at(-1)).toMatch(new RegExp(`^status ${expected.state}`));
  });
});

describe('raw requests', () => {
  const message = { messageId: 'raw-1', role: 'ROLE_USER', parts: [{ text: 'echo raw' }] };

  it('1.0 JSON-RPC: SendMessage with A2A-Version 1.0 answers the task in ProtoJSON', async () => {
    const url = `${peers['1.0'].url}/a2a/jsonrpc`;
    const { status, body } = await postJson(url, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }, { 'A2A-Version': '1.0' });
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ name: 'result', parts: [{ text: 'echo: raw' }] }] },
    });
  });

  it('1.0 JSON-RPC: without A2A-Version the SDK reads the request as 0.3 and refuses it', async () => {
    const url = `${peers['1.0'].url}/a2a/jsonrpc`;
    // The SDK logs the refusal as an unhandled error; keep it out of the test output.
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { body } = await postJson(url, { jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { ...message, messageId: 'raw-2' } } }).finally(() =>
      log.mockRestore(),
    );
    expect(body.error).toMatchObject({ message: expect.stringMatching(/version '0\.3' is not supported/) });
  });

  it('1.0 HTTP+JSON: POST /message:send answers the task', async () => {
    const { status, body } = await postJson(`${peers['1.0'].url}/a2a/rest/message:send`, { message: { ...message, messageId: 'raw-3' } }, { 'A2A-Version': '1.0' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ text: 'echo: raw' }] }] } });
  });

  it('0.3 JSON-RPC: message/send answers a kind-tagged task', async () => {
    const { status, body } = await postJson(`${peers['0.3'].url}/a2a/jsonrpc`, {
      jsonrpc: '2.0',
      id: 4,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'raw-4', role: 'user', parts: [{ kind: 'text', text: 'echo raw' }] } },
    });
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ kind: 'task', status: { state: 'completed' }, artifacts: [{ name: 'result', parts: [{ kind: 'text', text: 'echo: raw' }] }] });
  });
});

describe('what the executor received', () => {
  const files = [
    { name: 'a.txt', mediaType: 'text/plain', bytes: new TextEncoder().encode('hello') },
    { name: 'b.pdf', mediaType: 'application/pdf', url: 'https://example.com/b.pdf' },
  ];

  it('1.0: the message as the SDK decoded it, bytes as a Uint8Array', async () => {
    await clients.get('1.0 peer, JSON-RPC')!.send('files-in', { contextId: 'ctx-received' }, files);
    expect(peers['1.0'].received.at(-1)).toMatchObject({
      contextId: 'ctx-received',
      taskId: expect.any(String),
      parts: [
        { content: { $case: 'text', value: 'files-in' } },
        { content: { $case: 'raw', value: new TextEncoder().encode('hello') }, filename: 'a.txt', mediaType: 'text/plain' },
        { content: { $case: 'url', value: 'https://example.com/b.pdf' }, filename: 'b.pdf', mediaType: 'application/pdf' },
      ],
    });
  });

  it('0.3: the message as sent, bytes in base64', async () => {
    await clients.get('0.3 peer, JSON-RPC')!.send('files-in', { contextId: 'ctx-received' }, files);
    expect(peers['0.3'].received.at(-1)).toMatchObject({
      kind: 'message',
      contextId: 'ctx-received',
      taskId: expect.any(String),
      parts: [
        { kind: 'text', text: 'files-in' },
        { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: 'aGVsbG8=' } },
        { kind: 'file', file: { name: 'b.pdf', mimeType: 'application/pdf', uri: 'https://example.com/b.pdf' } },
      ],
    });
  });
});

describe.each(['1.0', '0.3'] as const)('a %s peer with a bearer token', (version) => {
  const token = ['peer', '-token-', 'Zq81'].join('');
  let peer: SdkPeer;
  beforeAll(async () => {
    peer = await startSdkPeer({ version, token });
  });
  afterAll(() => peer.close());

  it('keeps its card public, and the card asks for HTTP bearer auth', async () => {
    const response = await fetch(`${peer.url}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as Json;
    if (version === '1.0') {
      expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: 'bearer', description: expect.any(String) } } });
      expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    } else {
      expect(card.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'bearer', description: expect.any(String) } });
      expect(card.security).toEqual([{ bearer: [] }]);
    }
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer wrong' }],
    ['another scheme', { authorization: `Basic ${token}` }],
  ])('answers 401 with WWW-Authenticate: Bearer to %s', async (_, headers) => {
    const { status, headers: answer } = await postJson(`${peer.url}/a2a/jsonrpc`, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }, headers);
    expect(status).toBe(401);
    expect(answer.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('refuses every other path too, REST included', async () => {
    for (const path of ['/a2a/rest/tasks/x', '/.well-known/agent.json', '/']) {
      const response = await fetch(`${peer.url}${path}`);
      expect([path, response.status]).toEqual([path, 401]);
    }
  });

  it('serves the SDK client that sends the token, and refuses the one that does not', async () => {
    const withToken = version === '1.0' ? [await clientV1(peer.url, 'JSONRPC', token), await clientV1(peer.url, 'HTTP+JSON', token)] : [await clientV03(peer.url, token)];
    for (const client of withToken) {
      expect(await client.send('echo secret')).toMatchObject({ state: 'completed', artifacts: ['result: echo: secret'] });
      expect((await client.stream('echo streamed secret')).events.at(-1)).toBe('status completed');
    }
    const without = version === '1.0' ? await clientV1(peer.url, 'JSONRPC') : await clientV03(peer.url);
    await expect(without.send('echo no')).rejects.toThrow(/401/);
  });
});
