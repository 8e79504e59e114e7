import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { callJsonRpc, readRpcReply, rpcRequest } from './jsonrpc.js';

describe('readRpcReply', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 7, result: { ok: true } }, { kind: 'result', result: { ok: true } }],
    [{ jsonrpc: '2.0', id: '7', result: null }, { kind: 'result', result: null }],
    [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }, { kind: 'error', error: { code: -32700, message: 'parse error' } }],
    [{ jsonrpc: '2.0', id: 8, result: {} }, { kind: 'invalid', problem: 'the JSON-RPC response answers request 8, not 7' }],
    [{ jsonrpc: '2.0', id: 7 }, { kind: 'invalid', problem: 'the JSON-RPC response has neither result nor error' }],
    [[{ jsonrpc: '2.0', id: 7, result: {} }], { kind: 'invalid', problem: 'the answer is not a JSON-RPC response object' }],
    ['ok', { kind: 'invalid', problem: 'the answer is not a JSON-RPC response object' }],
  ])('%j → %j', (reply, read) => {
    expect(readRpcReply(reply, 7)).toEqual(read);
  });
});

describe('callJsonRpc', () => {
  it('posts one call and reads its answer, whatever the status', async () => {
    const bodies: unknown[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const call = JSON.parse(body) as { id: string; method: string };
        bodies.push(call);
        res.writeHead(call.method === 'Fail' ? 400 : 200, { 'content-type': 'application/json' });
        res.end(call.method === 'Fail' ? JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32602, message: 'no' } }) : call.method === 'Text' ? 'not json' : JSON.stringify({ jsonrpc: '2.0', id: call.id, result: 'yes' }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect(await callJsonRpc(url, 'Ask', { a: 1 }, { id: 'c1' })).toEqual({ status: 200, reply: { kind: 'result', result: 'yes' } });
      expect(await callJsonRpc(url, 'Fail', {}, { id: 'c2' })).toEqual({ status: 400, reply: { kind: 'error', error: { code: -32602, message: 'no' } } });
      expect(await callJsonRpc(url, 'Text', {}, { id: 'c3' })).toEqual({ status: 200, reply: { kind: 'invalid', problem: 'the answer is not JSON' } });
      expect(bodies[0]).toEqual(JSON.parse(rpcRequest('c1', 'Ask', { a: 1 })));
      await expect(callJsonRpc(url, 'Ask', {}, { id: 'c4', guard: {} })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    } finally {
      server.close();
    }
  });
});
