// `serve --reply-to`: a peer that sends and never comes back (OpenClaw's a2a channel does so)
// still gets the answer, as a SendMessage of its own to the peer's endpoint, with its token,
// under the task id its [A2A:task] header gave.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe } from '../faults/serve-process.js';
import { tempHome } from '../fixtures/home.js';
import { eventually } from '../fixtures/webhook.js';
import { cli } from './run-cli.js';

interface Arrival {
  headers: IncomingHttpHeaders;
  body: { method: string; params: { message: { role: string; contextId: string; parts: { text?: string }[] }; configuration?: { returnImmediately?: boolean } } };
}

const closers: (() => void)[] = [];
afterEach(() => {
  while (closers.length > 0) closers.pop()?.();
});

/** A peer's A2A endpoint that records what it is sent and answers with a task. */
async function peerEndpoint(status = 200): Promise<{ url: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as Arrival['body'] & { id?: unknown };
      arrivals.push({ headers: req.headers, body: call });
      res.writeHead(status, { 'content-type': 'application/json' });
      // The answer to this call: a JSON-RPC client takes no answer to another.
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { task: { id: 't-1', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/v1`, arrivals };
}

function sendFireAndForget(url: string, token: string, text: string, contextId: string) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', contextId, parts: [{ text }] }, configuration: { returnImmediately: true } } }),
  });
}

describe('a2a-lite serve --reply-to', () => {
  it('sends the answer back to a peer that sent and forgot, under its own task id, with its token', async () => {
    const home = tempHome('reply');
    expect(cli(['card', 'init', '--id', 'lite', '--name', 'Lite', '--skill', 'research:Research:finds things'], { home }).code).toBe(0);
    const program = join(home, 'agent.cjs');
    writeFileSync(program, "const id = process.env.A2A_TASK_ID; console.log('[A2A:result task=' + id + ' state=completed]\\nfound it for ' + process.env.A2A_PEER_TASK_ID);");
    const peer = await peerEndpoint();
    process.env.REPLY_TEST_IN = 'in-token-abcdefgh';
    process.env.REPLY_TEST_OTHER = 'other-token-abcdefgh';
    process.env.REPLY_TEST_OUT = 'out-token-abcdefgh';
    const server = await startServe(home, `node ${program}`, [
      '--auth-bearer-env', 'REPLY_TEST_IN', '--auth-bearer-env', 'REPLY_TEST_OTHER',
      '--reply-to', `REPLY_TEST_IN=${peer.url}`, '--reply-token-env', 'REPLY_TEST_IN=REPLY_TEST_OUT',
    ]);
    expect((server.info as unknown as { replyTo: string[] }).replyTo).toEqual(['REPLY_TEST_IN']);
    const sent = await sendFireAndForget(server.info.jsonrpc, 'in-token-abcdefgh', '[A2A:task id=research-010 skill=research]\nFind the agent papers', 'ctx-oc-lite');
    expect(sent.status).toBe(200);
    await eventually(() => peer.arrivals.length > 0);
    const arrival = peer.arrivals[0] as Arrival;
    expect(arrival.headers.authorization).toBe('Bearer out-token-abcdefgh');
    expect(arrival.body.method).toBe('SendMessage');
    expect(arrival.body.params.configuration?.returnImmediately).toBe(true);
    expect(arrival.body.params.message).toMatchObject({ role: 'ROLE_USER', contextId: 'ctx-oc-lite' });
    expect(arrival.body.params.message.parts[0]?.text).toBe('[A2A:result task=research-010 state=completed]\nfound it for research-010');

    // Another client's tasks are answered the usual way only: nothing more reaches the peer.
    await sendFireAndForget(server.info.jsonrpc, 'other-token-abcdefgh', 'plain question', 'ctx-2');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(peer.arrivals).toHaveLength(1);
    expect(server.stderr()).toContain('reply: sent the completed answer');
    expect(server.stderr()).not.toContain('out-token-abcdefgh');
  });

  it('refuses a reply target for a client it does not know, and a token variable without a target', () => {
    const home = tempHome('reply-usage');
    const unknown = cli(['serve', '--home', home, '--exec', 'true', '--reply-to', 'NOBODY=http://127.0.0.1:1/a2a/v1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--reply-to names NOBODY, which is no client');
    const lonely = cli(['serve', '--home', home, '--exec', 'true', '--auth-bearer-env', 'HOME', '--reply-token-env', 'HOME=PATH']);
    expect(lonely.stderr).toContain('without --reply-to HOME=URL');
  });
});
