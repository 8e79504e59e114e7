// Agents that do less than the SDK: one that answers with a message and makes no task, one that
// cannot stream and finishes later (like OpenClaw's own A2A channel: no streaming, CancelTask
// refused), and ones that answer with something that is not A2A. Raw node:http on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { cliAsync } from '../cli/run-cli.js';
import { fetchAgentCard } from '../../src/client/discover.js';
import { sendAndFollow } from '../../src/client/remote-task.js';
import { openTransport } from '../../src/client/open-transport.js';

type Handler = (rpc: { id: unknown; method: string; params: Record<string, unknown> }, res: ServerResponse) => void;

const servers: Server[] = [];

async function agent(name: string, onRpc: Handler, streaming = false, tenant?: string): Promise<string> {
  let url = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name,
          description: `${name} for tests`,
          version: '1.0.0',
          supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', ...(tenant ? { tenant } : {}) }],
          capabilities: { streaming },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 'chat', name: 'Chat', description: 'Talks', tags: ['chat'] }],
        }),
      );
      return;
    }
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const rpc = JSON.parse(body) as { id: unknown; method: string; params: Record<string, unknown> };
      onRpc(rpc, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  servers.push(server);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return url;
}

const reply = (res: ServerResponse, id: unknown, result: unknown): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
};
const fault = (res: ServerResponse, id: unknown, code: number, message: string): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
};

let talker: string;
let slowpoke: string;
let garbled: string;
let locked: string;
let flaky: string;
let sleepy: string;
let gets = 0;
let flakyGets = 0;
let tenanted: string;
const tenants: unknown[] = [];

beforeAll(async () => {
  talker = await agent('Talker', (rpc, res) =>
    reply(res, rpc.id, { message: { messageId: 'answer-1', role: 'ROLE_AGENT', parts: [{ text: 'hi there, no task needed' }] } }),
  );
  slowpoke = await agent('Slowpoke', (rpc, res) => {
    const working = { id: 'task-9', contextId: 'ctx-9', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-21T10:00:00Z' } };
    if (rpc.method === 'SendMessage') return reply(res, rpc.id, { task: working });
    if (rpc.method === 'GetTask') {
      gets += 1;
      if (gets < 3) return reply(res, rpc.id, working);
      return reply(res, rpc.id, { ...working, status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-21T10:00:02Z' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'finished at last' }] }] });
    }
    if (rpc.method === 'CancelTask') return fault(res, rpc.id, -32004, 'cancel is not supported');
    return fault(res, rpc.id, -32601, 'no such method');
  });
  garbled = await agent('Garbled', (_rpc, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>surprise</html>');
  });
  flaky = await agent('Flaky', (rpc, res) => {
    const working = { id: 'task-f', contextId: 'ctx-f', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-21T10:00:00Z' } };
    if (rpc.method === 'SendMessage') return reply(res, rpc.id, { task: working });
    flakyGets += 1;
    // A proxy in front of the agent has a bad moment: HTML, 503.
    if (flakyGets === 1) {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html>503 Service Unavailable</html>');
      return;
    }
    reply(res, rpc.id, { ...working, status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-21T10:00:01Z' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'Hel' }, { text: 'lo' }] }] });
  });
  sleepy = await agent('Sleepy', (rpc, res) => {
    setTimeout(() => reply(res, rpc.id, { task: { id: 'task-s', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-21T10:00:00Z' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'worth the wait' }] }] } }), 1_500);
  });
  tenanted = await agent(
    'Tenanted',
    (rpc, res) => {
      tenants.push(rpc.params.tenant);
      const done = { id: 'task-t', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-21T10:00:00Z' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'for acme' }] }] };
      reply(res, rpc.id, rpc.method === 'SendMessage' ? { task: done } : done);
    },
    false,
    'acme',
  );
  locked = await agent('Locked', (_rpc, res) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer realm="locked"', 'content-type': 'application/json' });
    res.end('{"error":"no"}');
  });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('agents that do less', () => {
  it('prints a direct answer that makes no task, and exits 0', async () => {
    const { code, stdout, stderr } = await cliAsync(['send', talker, 'hello'], { home: tempHome() });
    expect(code, stderr).toBe(0);
    expect(stdout.trim()).toBe('hi there, no task needed');
  });

  it('polls an agent that cannot stream until its task ends', async () => {
    const home = tempHome();
    const { code, stdout, stderr } = await cliAsync(['send', slowpoke, 'take your time'], { home });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('[A2A:status task=task-9 state=working]');
    expect(stdout).toContain('[A2A:result task=task-9 state=completed]\nfinished at last');
    expect(gets).toBeGreaterThanOrEqual(3);
    const refused = await cliAsync(['tasks', 'cancel', 'task-9'], { home });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toContain('cancel is not supported');
  });

  it('says so when the answer is not A2A (exit 8) or credentials are wanted (exit 14)', async () => {
    const bad = await cliAsync(['send', garbled, 'x'], { home: tempHome() });
    expect(bad.code).toBe(8);
    expect(bad.stderr).toContain('is not JSON');
    const shut = await cliAsync(['send', locked, 'x'], { home: tempHome() });
    expect(shut.code).toBe(14);
    expect(shut.stderr).toContain('wants credentials (Bearer); pass --token-env NAME');
  });

  it('tries again after a proxy says 503, and joins an artifact’s text chunks', async () => {
    const { code, stdout, stderr } = await cliAsync(['send', flaky, 'x'], { home: tempHome() });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('HTTP 503');
    expect(stdout).toContain('[A2A:result task=task-f state=completed]\nHello');
  });

  it('waits for a blocking answer as long as the deadline allows, not a request’s limit', async () => {
    const { card } = await fetchAgentCard(sleepy);
    const transport = openTransport(card.interfaces[0]!, { timeoutMs: 200 });
    const message = { messageId: 'm', role: 'user' as const, parts: [{ kind: 'text' as const, text: 'take your time' }] };
    // The transport's own limit is 0.2 s; the answer comes after 1.5 s.
    const outcome = await sendAndFollow(transport, message, { stream: false, deadline: Date.now() + 10_000, onEvent: () => {} });
    expect(outcome.kind === 'task' && outcome.task.status.state).toBe('completed');
  });

  it('refuses a token a header cannot carry, without printing it', async () => {
    const { code, stderr } = await cliAsync(['send', talker, 'x', '--token-env', 'BAD_TOKEN'], { home: tempHome(), env: { BAD_TOKEN: 'abc\nsecret-part' } });
    expect(code).toBe(2);
    expect(stderr).toContain('the token in BAD_TOKEN holds spaces, line breaks or other characters');
    expect(stderr).not.toContain('secret-part');
  });

  it('names the tenant of the interface in every request', async () => {
    const home = tempHome();
    const sent = await cliAsync(['send', tenanted, 'hi'], { home });
    expect(sent.code, sent.stderr).toBe(0);
    expect((await cliAsync(['tasks', 'get', 'task-t'], { home })).code).toBe(0);
    expect(tenants).toEqual(['acme', 'acme']);
  });
});
