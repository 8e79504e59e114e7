// The exec contract's final status, as the official @a2a-js/sdk client sees it: a real
// `a2a-lite serve --exec` running a small program (fixtures/final-words.mjs) over 127.0.0.1, read
// over JSON-RPC 1.0, HTTP+JSON and JSON-RPC 0.3, each with a blocking send and a stream.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StreamResponse, Task } from '@a2a-js/sdk';
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli } from '../cli/run-cli.js';
import { asTask, send, sendRequest, userMessage } from './sdk-requests.js';

const PROGRAM = fileURLToPath(new URL('./fixtures/final-words.mjs', import.meta.url));

let home = '';
let server: ChildProcess | undefined;
const clients: Record<string, Client> = {};
/** What each client asked for on the wire: a JSON-RPC method, or a REST method and path. */
const asked: Record<string, string[]> = {};

function watch(binding: string): typeof fetch {
  return (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
    (asked[binding] ??= []).push(body.method ?? `${init?.method ?? 'GET'} ${path}`);
    return fetch(input, init);
  };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'a2a-lite-final-words-'));
  const made = cli(['card', 'init', '--id', 'answerer', '--name', 'Answerer', '--skill', 'answer:Answer:Answers questions'], { home });
  expect(made.code, made.stderr).toBe(0);
  const exec = `${JSON.stringify(process.execPath)} ${JSON.stringify(PROGRAM)}`;
  server = spawn(process.execPath, [BIN, 'serve', '--home', home, '--host', '127.0.0.1', '--port', '0', '--store', 'memory', '--json', '--exec', exec], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server?.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
    });
    server?.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  clients['JSON-RPC 1.0'] = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: watch('JSON-RPC 1.0') })] }).createFromUrl(url);
  clients['HTTP+JSON 1.0'] = await new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl: watch('HTTP+JSON 1.0') })] }).createFromUrl(url);
  // The SDK reads our card as 1.0; its 0.3 transport is aimed at the card's 0.3 `url` by hand.
  const raw = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as { url: string };
  const card = await new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).resolve(url);
  clients['JSON-RPC 0.3'] = new Client(new LegacyJsonRpcTransport({ endpoint: raw.url, fetchImpl: watch('JSON-RPC 0.3') }), card);
}, 30_000);

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const gone = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await gone;
  }
  if (home) rmSync(home, { recursive: true, force: true });
});

type Content = { $case: string; value: unknown } | undefined;
const finalWords = (task: Task): Content => task.status?.message?.parts[0]?.content;
const resultOf = (task: Task): Content[] => task.artifacts.map((a) => a.parts.map((p) => p.content)).flat();

const CASES: [string, string, Content, Content[]][] = [
  ['a result and final words of its own', 'words life', { $case: 'text', value: 'Answered: life.' }, [{ $case: 'text', value: 'The answer about life is 42.' }]],
  ['plain text and no words: the text on the status too', 'plain tea', { $case: 'text', value: 'plain answer about tea' }, [{ $case: 'text', value: 'plain answer about tea' }]],
  ['a long result and no words: the status says nothing', 'long', undefined, [{ $case: 'text', value: 'x'.repeat(3000) }]],
  ['a completed status with an empty body: nothing, on purpose', 'silent hush', undefined, [{ $case: 'text', value: 'quiet answer about hush' }]],
];

describe.each(['JSON-RPC 1.0', 'HTTP+JSON 1.0', 'JSON-RPC 0.3'])('the final status of an exec task, over %s', (binding) => {
  it('is the binding asked for', () => {
    expect(clients[binding]!.transport.protocolName).toBe(binding.startsWith('HTTP') ? 'HTTP+JSON' : 'JSONRPC');
  });

  it.each(CASES)('after %s', async (_what, text, words, result) => {
    const task = asTask(await send(clients[binding]!, text));
    expect(task.status?.state).toBe(3); // TASK_STATE_COMPLETED
    expect(finalWords(task)).toEqual(words);
    expect(resultOf(task)).toEqual(result);
    const again = await clients[binding]!.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(finalWords(again)).toEqual(words);
  });

  it('ends a stream with the words, after artifact chunks and no result', async () => {
    const events: StreamResponse[] = [];
    for await (const event of clients[binding]!.sendMessageStream(sendRequest(userMessage('chunks')))) events.push(event);
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    expect(last?.$case === 'statusUpdate' && last.value.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'Drafted in two chunks.' });
    const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value.artifact?.name] : []));
    expect(chunks).toEqual(['draft', 'draft']);
  });

  it('spoke that binding on the wire', () => {
    const expected = { 'JSON-RPC 1.0': ['SendMessage', 'GetTask', 'SendStreamingMessage'], 'HTTP+JSON 1.0': ['POST /message:send', 'GET /tasks/', 'POST /message:stream'], 'JSON-RPC 0.3': ['message/send', 'tasks/get', 'message/stream'] }[binding]!;
    for (const call of expected) expect(asked[binding]!.some((seen) => seen.startsWith(call)), call).toBe(true);
  });

  it('ends a stream with the final words a program gave', async () => {
    const events: StreamResponse[] = [];
    for await (const event of clients[binding]!.sendMessageStream(sendRequest(userMessage('words streams')))) events.push(event);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'Answered: streams.' });
  });
});
