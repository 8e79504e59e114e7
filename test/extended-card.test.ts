// The extended Agent Card (A2A 1.0 §3.1.11, §13.3) over real HTTP, through each binding: given
// only to authenticated callers, in the shape of the version asked, declared in the public card,
// and refused with the spec's errors when it is not offered or not configured for a caller.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler, type A2AHandlerOptions } from '../src/a2a/server/handler.js';
import type { HttpRequest } from '../src/net/http-types.js';
import { listen, type Listening } from '../src/net/node-http.js';
import { createAgent } from '../src/runtime/agent.js';
import { jiajiaCard } from './fixtures/cards.js';

type Json = Record<string, unknown>;

const schema = JSON.parse(readFileSync(new URL('./fixtures/a2a-v1-agent-card.schema.json', import.meta.url), 'utf8')) as Json;
const validateV1 = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

const TOKEN = 'token-for-the-extended-card-test';
const OTHER = 'other-token-for-the-extended-card';
const EXTRA = { description: 'Jiajia, for members', skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['finance'], examples: ['audit Q3'] }] };
const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });

const running: Listening[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

async function serve(options: Partial<A2AHandlerOptions>): Promise<string> {
  let url = '';
  const server = await listen(createA2AHandler({ agent, baseUrl: () => url, ...options }), { host: '127.0.0.1', port: 0 });
  running.push(server);
  url = server.url;
  return url;
}

const withToken = (token?: string): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

async function rpc(url: string, method: string, version: '1.0' | '0.3', token?: string): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${url}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(version === '1.0' ? { 'a2a-version': '1.0' } : {}), ...withToken(token) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

async function rest(url: string, token?: string): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${url}/extendedAgentCard`, { headers: { 'a2a-version': '1.0', ...withToken(token) } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

describe('an agent with an extended card and a bearer token', () => {
  const setup = { auth: { bearerTokens: [{ principal: 'ALICE', secret: TOKEN }] }, extendedCard: EXTRA };

  it('declares it in the public card, in both shapes', async () => {
    const url = await serve(setup);
    const v1 = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as Json;
    expect(v1.capabilities).toMatchObject({ extendedAgentCard: true });
    expect(v1.skills).not.toContainEqual(expect.objectContaining({ id: 'audit' }));
    const v03 = (await (await fetch(`${url}/.well-known/agent.json`)).json()) as Json;
    expect(v03).toMatchObject({ supportsAuthenticatedExtendedCard: true, capabilities: { extendedAgentCard: true } });
  });

  it('gives it over JSON-RPC 1.0 in the 1.0 shape, which the strict schema accepts, kept private', async () => {
    const url = await serve(setup);
    const { status, headers, body } = await rpc(url, 'GetExtendedAgentCard', '1.0', TOKEN);
    expect(status).toBe(200);
    const card = body.result as Json;
    expect(card).toMatchObject({ description: 'Jiajia, for members', capabilities: { extendedAgentCard: true } });
    expect((card.skills as Json[]).map((skill) => skill.id)).toEqual(['research', 'podcast-script', 'audit']);
    expect(card).not.toHaveProperty('url');
    expect(validateV1(card), JSON.stringify(validateV1.errors)).toBe(true);
    expect(headers.get('cache-control')).toBe('private, no-store');
  });

  it('gives it over HTTP+JSON as the same card', async () => {
    const url = await serve(setup);
    const viaRest = await rest(url, TOKEN);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual((await rpc(url, 'GetExtendedAgentCard', '1.0', TOKEN)).body.result);
  });

  it('gives it over JSON-RPC 0.3 in the shape a 0.3 client reads', async () => {
    const url = await serve(setup);
    const { body } = await rpc(url, 'agent/getAuthenticatedExtendedCard', '0.3', TOKEN);
    expect(body.result).toMatchObject({ url: `${url}/jsonrpc`, protocolVersion: '0.3.0', supportsAuthenticatedExtendedCard: true, description: 'Jiajia, for members', skills: expect.arrayContaining([expect.objectContaining({ id: 'audit', examples: ['audit Q3'] })]) });
  });

  it.each([
    ['JSON-RPC 1.0 without a token', (url: string) => rpc(url, 'GetExtendedAgentCard', '1.0')],
    ['JSON-RPC 1.0 with a wrong token', (url: string) => rpc(url, 'GetExtendedAgentCard', '1.0', OTHER)],
    ['JSON-RPC 0.3 without a token', (url: string) => rpc(url, 'agent/getAuthenticatedExtendedCard', '0.3')],
    ['HTTP+JSON without a token', (url: string) => rest(url)],
  ])('answers 401 to %s', async (_name, ask) => {
    const url = await serve(setup);
    const { status, headers, body } = await ask(url);
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('Bearer realm="a2a-lite"');
    expect(JSON.stringify(body)).not.toContain('audit');
  });
});

describe('an extended card that differs by caller', () => {
  const setup: Partial<A2AHandlerOptions> = {
    auth: { bearerTokens: [{ principal: 'ALICE', secret: TOKEN }, { principal: 'BOB', secret: OTHER }] },
    extendedCard: (principal) => (principal === 'ALICE' ? EXTRA : undefined),
  };

  it('gives each caller its own, and ExtendedAgentCardNotConfigured to one it has none for, in each binding', async () => {
    const url = await serve(setup);
    expect(((await rpc(url, 'GetExtendedAgentCard', '1.0', TOKEN)).body.result as Json).description).toBe('Jiajia, for members');
    expect((await rpc(url, 'GetExtendedAgentCard', '1.0', OTHER)).body.error).toEqual({
      code: -32007,
      message: 'this agent has no extended card for this client',
      data: [expect.objectContaining({ reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', domain: 'a2a-protocol.org' })],
    });
    expect((await rpc(url, 'agent/getAuthenticatedExtendedCard', '0.3', OTHER)).body.error).toEqual({ code: -32007, message: 'this agent has no extended card for this client' });
    const viaRest = await rest(url, OTHER);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION', details: [expect.objectContaining({ reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' })] });
  });

  it('answers a card the function got wrong as the server’s own failure, and reports it', async () => {
    const reported: string[] = [];
    const url = await serve({ ...setup, extendedCard: () => ({ capabilities: {} }) as never, onError: (_error, where) => reported.push(where) });
    expect((await rpc(url, 'GetExtendedAgentCard', '1.0', TOKEN)).body.error).toMatchObject({ code: -32603, message: 'the extended card could not be made' });
    expect(reported).toEqual(['JSON-RPC GetExtendedAgentCard']);
  });
});

describe('who counts as authenticated', () => {
  const handler = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331', extendedCard: EXTRA });
  const ask = (principal?: string): HttpRequest => ({
    method: 'POST',
    path: '/jsonrpc',
    query: new URLSearchParams(),
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
    ...(principal === undefined ? {} : { principal }),
  });

  it('a caller a hub with tokens vouches for', async () => {
    const response = await handler(ask('hub:ALICE'));
    expect(response.status).toBe(200);
    expect(JSON.parse('body' in response ? response.body : '{}').result.skills).toContainEqual(expect.objectContaining({ id: 'audit' }));
  });

  it.each([
    ['nobody, on a server without auth', undefined],
    ['the stand-in of a hub without tokens', 'hub:anonymous'],
  ])('not %s: 401', async (_name, principal) => {
    const response = await handler(ask(principal));
    expect(response.status).toBe(401);
  });

  it('a fixed extended card that is wrong stops the handler from being made', () => {
    expect(() => createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331', extendedCard: { skills: [{ id: 'new-one' }] } })).toThrow('the extended card\'s skill "new-one" is not on the public card, so it needs a name');
    expect(() => createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331', extendedCard: { securitySchemes: {} } as never })).toThrow('the extended card: securitySchemes is set by the server');
  });
});

describe('an agent without an extended card', () => {
  it('declares none, and answers UnsupportedOperation even to an authenticated caller', async () => {
    const url = await serve({ auth: { bearerTokens: [TOKEN] } });
    expect(((await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as Json).capabilities).toMatchObject({ extendedAgentCard: false });
    expect((await rpc(url, 'GetExtendedAgentCard', '1.0', TOKEN)).body.error).toMatchObject({ code: -32004, message: 'this agent has no extended card; its card is public' });
    expect((await rest(url, TOKEN)).status).toBe(400);
  });
});
