import { describe, expect, it } from 'vitest';
import { jiajiaCard } from '../../card/examples.js';
import { createAgent } from '../../runtime/agent.js';
import { DEFAULT_PRINCIPAL, withAuth } from './auth.js';
import { createA2AHandler } from './handler.js';
import { METHODS_V03 } from './jsonrpc-v03.js';
import { METHODS_V1 } from './jsonrpc-v1.js';
import type { HttpRequest, HttpResponse } from '../../net/http-types.js';

const TOKEN = ['tok', 'en-', 'Zx81Qw0PlmNbV7cX'].join('');
const KEY = ['key', '-', 'Q1w2E3r4'].join('');
let clock = 0;
const lockouts: string[] = [];
const handle = createA2AHandler({
  agent: createAgent({ card: jiajiaCard(), onTask: () => 'ok' }),
  baseUrl: 'http://127.0.0.1:7331',
  auth: { bearerTokens: [TOKEN, 'second-token'], apiKeys: [KEY], maxFailuresPerMinute: 5, now: () => clock, onLockout: (address, limit) => lockouts.push(`${address} after ${limit}`) },
});

const getTask = (headers: Record<string, string>, remoteAddress = '10.0.0.1'): HttpRequest => ({
  method: 'POST',
  path: '/jsonrpc',
  query: new URLSearchParams(),
  headers: { 'a2a-version': '1.0', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }),
  remoteAddress,
});
const bodyOf = (r: HttpResponse) => ('body' in r ? r.body : '');

describe('authentication', () => {
  it('keeps the card public and declares the schemes in both versions', async () => {
    // The card a 0.3 client asks for holds the schemes in both forms.
    const response = await handle({ method: 'GET', path: '/.well-known/agent-card.json', query: new URLSearchParams(), headers: { 'a2a-version': '0.3' }, body: '' });
    const card = JSON.parse(bodyOf(response));
    expect(response.status).toBe(200);
    expect(card.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' }, type: 'http', scheme: 'bearer' },
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' }, type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }]);
    expect(card.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(bodyOf(response)).not.toContain(TOKEN);
  });

  it.each([
    ['no credential', {}],
    ['a wrong bearer token', { authorization: 'Bearer wrong' }],
    ['a token that is a prefix of the right one', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['the right token with another scheme', { authorization: `Basic ${TOKEN}` }],
    ['a wrong API key', { 'x-api-key': 'nope' }],
  ])('refuses %s with 401 and a challenge, naming no secret', async (_what, headers) => {
    clock += 61_000;
    const response = await handle(getTask(headers, `refused-${_what}`));
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="a2a-lite"');
    expect(bodyOf(response)).not.toContain(TOKEN);
    expect(bodyOf(response)).not.toContain(KEY);
  });

  it.each([
    ['the first bearer token', { authorization: `Bearer ${TOKEN}` }],
    ['the second bearer token', { authorization: 'Bearer second-token' }],
    ['the API key', { 'x-api-key': KEY }],
  ])('lets %s through to the agent', async (_what, headers) => {
    const response = await handle(getTask(headers));
    expect(response.status).toBe(200);
    expect(JSON.parse(bodyOf(response)).error.code).toBe(-32001);
  });

  it('answers 429 to an address that keeps guessing, without locking out valid clients there', async () => {
    clock += 61_000;
    for (let i = 0; i < 5; i += 1) expect((await handle(getTask({ authorization: 'Bearer guess' }, '10.9.9.9'))).status).toBe(401);
    const limited = await handle(getTask({ authorization: 'Bearer guess' }, '10.9.9.9'));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect((await handle(getTask({ authorization: 'Bearer guess' }, '10.9.9.9'))).status).toBe(429);
    // Told once per lockout, with the address and never a credential.
    expect(lockouts).toEqual(['10.9.9.9 after 5']);
    expect((await handle(getTask({ authorization: `Bearer ${TOKEN}` }, '10.9.9.9'))).status).toBe(200);
    expect((await handle(getTask({ authorization: 'Bearer guess' }, '10.8.8.8'))).status).toBe(401);
    clock += 61_000;
    expect((await handle(getTask({ authorization: 'Bearer guess' }, '10.9.9.9'))).status).toBe(401);
  });

  it('answers nothing but the card without a valid credential: every method, every route', async () => {
    const tried: string[] = [];
    const expectRefused = async (request: HttpRequest): Promise<void> => {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { 'x-api-key': 'wrong' }]) {
        clock += 61_000;
        const response = await handle({ ...request, headers: { ...request.headers, ...headers }, remoteAddress: `every-${tried.length}` });
        expect(response.status, `${request.method} ${request.path} ${request.body.slice(0, 60)}`).toBe(401);
        expect(bodyOf(response)).not.toContain(TOKEN);
      }
      tried.push(`${request.method} ${request.path}`);
    };
    const rpc = (method: string, version: string): HttpRequest => ({
      method: 'POST',
      path: '/jsonrpc',
      query: new URLSearchParams(),
      headers: version === '1.0' ? { 'a2a-version': '1.0', 'content-type': 'application/json' } : { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { id: 'x' } }),
    });
    for (const method of Object.keys(METHODS_V1)) await expectRefused(rpc(method, '1.0'));
    for (const method of Object.keys(METHODS_V03)) await expectRefused(rpc(method, '0.3'));
    await expectRefused({ ...rpc('GetTask', '1.0'), path: '/' });
    const routes: [string, string][] = [
      ['POST', '/message:send'],
      ['POST', '/message:stream'],
      ['GET', '/tasks'],
      ['GET', '/tasks/x'],
      ['POST', '/tasks/x:cancel'],
      ['GET', '/tasks/x:subscribe'],
      ['POST', '/tasks/x:subscribe'],
      ['GET', '/tasks/x/pushNotificationConfigs'],
      ['POST', '/tasks/x/pushNotificationConfigs'],
      ['GET', '/tasks/x/pushNotificationConfigs/c'],
      ['DELETE', '/tasks/x/pushNotificationConfigs/c'],
      ['GET', '/extendedAgentCard'],
      ['GET', '/nowhere'],
      ['POST', '/.well-known/agent-card.json'],
    ];
    for (const [method, path] of routes) await expectRefused({ method, path, query: new URLSearchParams(), headers: { 'a2a-version': '1.0' }, body: method === 'GET' ? '' : '{}' });
    expect(tried.length).toBe(Object.keys(METHODS_V1).length + Object.keys(METHODS_V03).length + 1 + routes.length);
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      for (const method of ['GET', 'HEAD']) expect((await handle({ method, path, query: new URLSearchParams(), headers: {}, body: '' })).status).toBe(200);
    }
  });

  it('guards the REST binding too', async () => {
    const response = await handle({ method: 'GET', path: '/tasks/nope', query: new URLSearchParams(), headers: { 'a2a-version': '1.0' }, body: '', remoteAddress: 'rest' });
    expect(response.status).toBe(401);
  });
});

describe('principals', () => {
  const request = (headers: Record<string, string>, path = '/jsonrpc'): HttpRequest => ({ method: 'GET', path, query: new URLSearchParams(), headers, body: '', remoteAddress: 'p' });
  const seen: (string | undefined)[] = [];
  const inner = async (_request: HttpRequest, principal: string | undefined): Promise<HttpResponse> => {
    seen.push(principal);
    return { status: 200, headers: {}, body: '' };
  };

  it('hands the handler the principal of the credential presented, and none for the card', async () => {
    const guarded = withAuth(inner, {
      bearerTokens: [{ principal: 'A2A_ALICE', secret: TOKEN }, 'bare-token'],
      apiKeys: [{ principal: 'A2A_BOB', secret: KEY }],
    });
    seen.length = 0;
    await guarded(request({ authorization: `Bearer ${TOKEN}` }));
    await guarded(request({ 'x-api-key': KEY }));
    await guarded(request({ authorization: 'Bearer bare-token' }));
    await guarded(request({}, '/.well-known/agent-card.json'));
    expect(seen).toEqual(['A2A_ALICE', 'A2A_BOB', DEFAULT_PRINCIPAL, undefined]);
  });

  it('hands it none when auth is off', async () => {
    seen.length = 0;
    await withAuth(inner, {})(request({ authorization: `Bearer ${TOKEN}` }));
    expect(seen).toEqual([undefined]);
  });

  it('refuses one secret held by two principals, naming them and not the secret', () => {
    const make = () => withAuth(inner, { bearerTokens: [{ principal: 'A2A_ALICE', secret: TOKEN }], apiKeys: [{ principal: 'A2A_BOB', secret: TOKEN }] });
    expect(make).toThrow(expect.objectContaining({ code: 'USAGE', message: 'the credentials of A2A_ALICE and A2A_BOB are the same secret; each principal needs its own' }));
    expect(() => withAuth(inner, { bearerTokens: [{ principal: 'A2A_ALICE', secret: TOKEN }], apiKeys: [{ principal: 'A2A_ALICE', secret: TOKEN }] })).not.toThrow();
  });
});
