// Agents whose errors are not the spec's: an HTTP error with a framework's JSON, a proxy's HTML,
// or a bare string as the JSON-RPC error. The user reads the status and what the agent said,
// never "error undefined".
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransport } from '../../src/client/open-transport.js';
import type { RemoteInterface } from '../../src/model/remote-access.js';

const ANSWERS: Record<string, [number, string, string]> = {
  '/framework': [400, 'application/json', '{"error":"Bad Request","detail":"messageId is required"}'],
  '/nested': [422, 'application/json', '{"error":{"message":"parts must not be empty"}}'],
  '/html': [400, 'text/html', '<html><body><h1>400 Bad Request</h1></body></html>'],
  '/empty': [400, 'text/plain', ''],
  '/string-error': [200, 'application/json', '{"jsonrpc":"2.0","id":1,"error":"the agent is tired"}'],
  '/bare-error': [200, 'application/json', '{"jsonrpc":"2.0","id":1,"error":{}}'],
  '/rpc-400': [400, 'application/json', '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"params.message is missing"}}'],
};

let base = '';
const server = createServer((req, res) => {
  const [status, type, body] = ANSWERS[req.url ?? ''] ?? [404, 'text/plain', 'no'];
  req.resume();
  req.on('end', () => res.writeHead(status, { 'content-type': type }).end(body));
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const at = (path: string, version: '1.0' | '0.3' = '1.0'): RemoteInterface => ({ url: `${base}${path}`, binding: 'JSONRPC', version });
const failureOf = async (path: string): Promise<{ code?: string; message: string }> => {
  try {
    await openTransport(at(path)).getTask('t-1');
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('no error');
};

describe('an agent whose errors are not JSON-RPC', () => {
  it.each([
    ['/framework', /answered HTTP 400: Bad Request$/],
    ['/nested', /answered HTTP 422: parts must not be empty$/],
    ['/html', /answered HTTP 400: <html><body><h1>400 Bad Request<\/h1><\/body><\/html>$/],
    ['/empty', /answered HTTP 400$/],
    ['/string-error', /the agent answered with an error: the agent is tired$/],
    ['/bare-error', /an error without a message \(\{\}\)$/],
    ['/rpc-400', /params\.message is missing \(-32602\)$/],
  ])('%s: says the status and what the agent said', async (path, expected) => {
    const failure = await failureOf(path);
    expect(failure.code).toBe('PEER_ERROR');
    expect(failure.message).toMatch(expected);
    expect(failure.message).not.toContain('undefined');
  });
});
