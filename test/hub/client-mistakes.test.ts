// A client's mistakes, sent over real HTTP to `a2a-lite hub` as a child process: a card URL that
// leads nowhere or to a card nested too deep, a malformed percent-escape in a path or a query, a body nested too deep or not
// JSON. Each is answered with a 4xx naming what was wrong, and the hub writes nothing to its
// error output: they are not failures of the hub.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { agentHome, BEHAVE, freePort, start, startAgent, startHub, until } from './hub-processes.js';

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const ESCAPE = 'which is not valid percent-encoding (% and two hex digits, of UTF-8)';
const TOO_DEEP = 'the request body nests deeper than 128 levels';

async function answer(response: Response): Promise<{ status: number; message: string }> {
  const body = (await response.json()) as { error?: { message?: string } };
  return { status: response.status, message: body.error?.message ?? JSON.stringify(body) };
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** A message send whose metadata is `depth` arrays deep, under a key spelled with an escape, so that the hub must parse it. */
const deepSend = (depth: number, rpc: boolean): string => {
  const message = `{"messageId":"m-deep","role":"ROLE_USER","parts":[{"text":"echo deep"}],"metadata":{"\\u0078":${nested(depth)}}}`;
  return rpc ? `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${message}}}` : `{"message":${message}}`;
};

describe('client mistakes at the hub', () => {
  it('answers each with a 4xx naming it, and logs none as its own failure', async () => {
    const hub = await startHub();
    const direct = await start(['serve', '--home', agentHome('by-url'), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
    const registered = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ url: direct.info.url }) });
    expect(registered.status).toBe(201);
    await startAgent(hub.url, 'linked');
    await until(async () => ((await fetch(`${hub.url}/hub/v1/agents/linked`)).status === 200 ? true : undefined), 10_000, 'linked to register');

    const register = (url: string): Promise<Response> => fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ url }) });
    const port = await freePort();
    expect(await answer(await register(`http://127.0.0.1:${port}`))).toEqual({
      status: 422,
      message: `the agent card could not be fetched from http://127.0.0.1:${port}/.well-known/agent-card.json: cannot reach 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
    expect(await answer(await register(`${direct.info.url as string}/nothing-here.json`))).toEqual({
      status: 422,
      message: `the agent card could not be fetched from ${direct.info.url as string}/nothing-here.json: it answered HTTP 404`,
    });
    // A card nested past what the hub stores: refused as no card, not copied until the stack runs out.
    const deepCard = createServer((_req, res) => res.end(`{"name":"x","skills":[{"id":"s","tags":${nested(100_000)}}]}`));
    deepCard.listen(0, '127.0.0.1');
    await once(deepCard, 'listening');
    const deepUrl = `http://127.0.0.1:${(deepCard.address() as AddressInfo).port}`;
    expect(await answer(await register(deepUrl))).toEqual({ status: 400, message: `${deepUrl}/.well-known/agent-card.json: the agent card nests deeper than 32 levels` });
    deepCard.close();
    const unnamed = await answer(await register('http://no-such-host.invalid/'));
    expect(unnamed.status).toBe(422);
    expect(unnamed.message).toMatch(/^the agent card could not be fetched from http:\/\/no-such-host\.invalid\/\.well-known\/agent-card\.json: the host "no-such-host\.invalid" does not resolve/);

    for (const [path, where, escape] of [
      ['/hub/v1/agents?q=%ZZ', 'query', '%ZZ'],
      ['/hub/v1/route?skill=%E0%A4', 'query', '%E0%A4'],
      ['/hub/v1/tasks?agent=by-url%', 'query', '%'],
      ['/hub/v1/agents/by-url%FF', 'path', '%FF'],
      ['/agents/by-url/tasks/%ZZ', 'path', '%ZZ'],
      ['/agents/linked/tasks/x%C3%28', 'path', '%C3%28'],
      ['/agents/by-url/.well-known/agent-card.json?x=%G1', 'query', '%G1'],
      ['/.well-known/ai-catalog.json?%', 'query', '%'],
      ['/hub/v1/%zz', 'path', '%zz'],
    ]) {
      expect(await answer(await fetch(`${hub.url}${path}`, { headers: JSON_HEADERS })), path).toEqual({ status: 400, message: `the ${where} holds "${escape}", ${ESCAPE}` });
    }

    const post = async (path: string, body: string): Promise<{ status: number; message: string }> => answer(await fetch(`${hub.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body }));
    const deep: [string, string][] = [
      ['/hub/v1/agents', `{"url":${nested(200)}}`],
      ['/ard/search', `{"query":{"text":"x","filter":{"tags":${nested(5_000)}}}}`],
      ['/hub/v1/connect/00000000-0000-0000-0000-000000000000', `{"frames":${nested(300)}}`],
      ['/agents/by-url/message:send', deepSend(5_000, false)],
      ['/agents/linked/message:send', deepSend(5_000, false)],
      ['/agents/by-url/jsonrpc', deepSend(5_000, true)],
      ['/agents/linked/jsonrpc', deepSend(200, true)],
    ];
    for (const [path, body] of deep) {
      expect(await post(path, body), path).toEqual({ status: 400, message: TOO_DEEP });
    }
    expect(await post('/hub/v1/agents', 'not json')).toEqual({ status: 400, message: 'the request body is not valid JSON' });
    expect(await post('/ard/search', '{"query": ')).toEqual({ status: 400, message: 'the request body is not valid JSON' });

    // What the hub did take still works, and its error output is empty.
    const sent = await fetch(`${hub.url}/agents/linked/message:send`, { method: 'POST', headers: JSON_HEADERS, body: deepSend(3, false) });
    expect(((await sent.json()) as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(hub.stderr()).toBe('');
  }, 60_000);
});
