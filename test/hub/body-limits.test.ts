// What a hub and an agent read before they decide: a caller without a credential is answered
// from the request's head, its body never read (the hub takes bodies of up to 64 MiB), and a
// request larger than an agent behind the hub takes is refused at the hub, never sent down.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { agentHome, start, startAgent, startHub, type Running } from './hub-processes.js';

const running: Running[] = [];
afterEach(() => {
  for (const process of running.splice(0)) process.child.kill('SIGKILL');
});

/**
 * Sends the head of a POST declaring `declared` bytes of body, then `sent` bytes of it, and
 * returns the status line of whatever answer comes while the rest is still owed. A server that
 * waits for the body answers 408 once its request timeout (30 s) has passed; `waitMs` only
 * bounds the wait, past both.
 */
async function answerBeforeBody(url: string, path: string, declared: number, sent: number, headers: Record<string, string> = {}, waitMs = 40_000): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const lines = [`POST ${path} HTTP/1.1`, `host: ${hostname}:${port}`, 'content-type: application/json', `content-length: ${declared}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 0x20));
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => finish(undefined), waitMs);
    const finish = (line: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(line);
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n');
      if (end !== -1) finish(text.slice(0, end));
    });
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(text === '' ? undefined : text.split('\r\n')[0]));
  });
}

describe('a caller without a credential', () => {
  it('is answered 401 by the hub before it sends the body it declared', async () => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_TOKEN'], { HUB_TOKEN: 'hub-token-2b7e15' });
    running.push(hub);
    // 32 MiB declared, 64 KiB sent: without the head check the hub waits for the rest.
    expect(await answerBeforeBody(hub.url, '/agents/anyone/jsonrpc', 32 * 1024 * 1024, 64 * 1024)).toMatch(/^HTTP\/1\.1 401 /);
    expect(await answerBeforeBody(hub.url, '/hub/v1/agents', 32 * 1024 * 1024, 64 * 1024, { authorization: 'Bearer wrong-token' })).toMatch(/^HTTP\/1\.1 401 /);
    // The public card and a caller with the token are read as before.
    const card = await fetch(`${hub.url}/.well-known/ai-catalog.json`);
    expect(card.status).toBe(200);
    const listed = await fetch(`${hub.url}/hub/v1/agents`, { headers: { authorization: 'Bearer hub-token-2b7e15' } });
    expect(listed.status).toBe(200);
  }, 90_000);

  it('is answered 401 by serve before it sends the body it declared', async () => {
    const agent = await start(['serve', '--home', agentHome('guarded'), '--store', 'memory', '--port', '0', '--exec', 'cat', '--auth-bearer-env', 'AGENT_TOKEN'], { AGENT_TOKEN: 'agent-token-9d4c1a' });
    running.push(agent);
    expect(await answerBeforeBody(agent.info.url as string, '/', 3 * 1024 * 1024, 64 * 1024)).toMatch(/^HTTP\/1\.1 401 /);
    const card = await fetch(`${agent.info.url as string}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
  }, 90_000);
});

describe('an agent behind the hub', () => {
  it('is sent no request larger than its --max-body: the hub answers 413 itself', async () => {
    const hub = await startHub();
    running.push(hub);
    const agent = await startAgent(hub.url, 'small', { extra: ['--port', 'none', '--max-body', String(1024 * 1024)] });
    running.push(agent);
    const send = (text: string): Promise<Response> =>
      fetch(`${hub.url}/agents/small/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m${text.length}`, role: 'ROLE_USER', parts: [{ text }] } } }),
      });
    const large = await send(`echo ${'x'.repeat(2 * 1024 * 1024)}`);
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: { message: string } }).error.message).toContain('small takes request bodies of up to 1048576 bytes');
    const small = await send('echo hi');
    expect(small.status).toBe(200);
    expect(await small.json()).toHaveProperty('result.task.id');
  }, 60_000);
});
