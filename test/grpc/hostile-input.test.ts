// The gRPC entry point under hostile input, over a real socket on 127.0.0.1: bytes that are not
// protobuf or not the method's message, messages over the size limit, nesting past the limit,
// hostile task ids, and calls without or with a wrong credential. Every answer is a status
// naming what was wrong; the server stays up for the next call.
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { grpcMethod, jsonToMessage, messageToJson } from '../../src/grpc/service.js';
import { detailsOfStatus } from '../../src/grpc/status.js';
import type { GrpcServer } from '../../src/net/grpc-server.js';
import { createAgent } from '../../src/runtime/agent.js';
import { serveGrpc } from '../../src/serve/grpc-service.js';

const TOKEN = 'grpc-token-0123456789';
const MAX = 64 * 1024;
let server: GrpcServer;
let client: grpc.Client;

beforeAll(async () => {
  const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
  const handler = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:1', auth: { bearerTokens: [TOKEN], maxFailuresPerMinute: 1000 } });
  server = await serveGrpc(handler, { host: '127.0.0.1', port: 0, maxMessageBytes: MAX });
  client = new grpc.Client(server.target, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client.close();
  await server.close(100);
});

/** Calls `method` with `bytes` as they are; resolves with the answer's bytes or the status. */
function call(method: string, bytes: Uint8Array, token: string | null = TOKEN): Promise<{ answer?: Buffer; error?: grpc.ServiceError }> {
  const metadata = new grpc.Metadata();
  if (token !== null) metadata.set('authorization', `Bearer ${token}`);
  const same = (value: Uint8Array): Buffer => Buffer.from(value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(grpcMethod(method).path, same, (b: Buffer) => b, bytes, metadata, { deadline: Date.now() + 10_000 }, (error, answer) => resolve(error ? { error } : { answer: answer! }));
  });
}

const send = (text: string) => jsonToMessage(grpcMethod('SendMessage').input, { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });

describe('the gRPC entry point', () => {
  it('answers a well-formed call', async () => {
    const { answer, error } = await call('SendMessage', send('hello'));
    expect(error).toBeUndefined();
    expect(messageToJson(grpcMethod('SendMessage').output, answer!)).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('refuses bytes that are not the message, naming its type, with INVALID_ARGUMENT and an ErrorInfo', async () => {
    const { error } = await call('SendMessage', new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/not a valid lf\.a2a\.v1\.SendMessageRequest/);
    expect(detailsOfStatus(error?.metadata.get('grpc-status-details-bin')[0] as Buffer)).toContainEqual(expect.objectContaining({ reason: 'INVALID_PARAMS' }));
  });

  it('refuses an empty SendMessage with the field at fault', async () => {
    const { error } = await call('SendMessage', new Uint8Array());
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/params\.message is required/);
  });

  it('never fails on random bytes with anything but a named refusal, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('SendMessage', 'GetTask', 'ListTasks', 'CancelTask'), fc.uint8Array({ maxLength: 200 }), async (method, bytes) => {
        const { error } = await call(method, bytes);
        if (error !== undefined) expect([grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND, grpc.status.FAILED_PRECONDITION], `${method}: ${error.details}`).toContain(error.code);
      }),
      { numRuns: 60 },
    );
    expect((await call('SendMessage', send('still here'))).error).toBeUndefined();
  });

  it('refuses a message over the size limit with RESOURCE_EXHAUSTED before reading it', async () => {
    const { error } = await call('SendMessage', send('x'.repeat(MAX + 1)));
    expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('refuses nesting past the limit in a data part', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200; i += 1) deep = { d: deep };
    // Nested Structs made by hand: the client-side encoder would refuse them too.
    const inner = new Uint8Array(0);
    let bytes = inner;
    for (let i = 0; i < 200; i += 1) {
      // Struct{fields: {"d": Value{struct_value: <bytes>}}}: map entry (1) → key (1) + value (2) → struct_value (5).
      const value = Uint8Array.of(0x2a, ...varint(bytes.length), ...bytes);
      const entry = Uint8Array.of(0x0a, 0x01, 0x64, 0x12, ...varint(value.length), ...value);
      bytes = Uint8Array.of(0x0a, ...varint(entry.length), ...entry);
    }
    // SendMessageRequest{metadata (4): Struct}
    const request = Uint8Array.of(0x22, ...varint(bytes.length), ...bytes);
    const { error } = await call('SendMessage', request);
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/recursion|depth|nest/i);
  });

  it.each([
    ['a path', '../../etc/passwd'],
    ['NUL', '%00\u0000nul'],
    ['a direction override', '\u202eevil'],
    ['10,000 characters', 'x'.repeat(10_000)],
    ['empty', ''],
  ])('answers a hostile task id (%s) with NOT_FOUND or INVALID_ARGUMENT, never more', async (_what, id) => {
    const { error } = await call('GetTask', jsonToMessage(grpcMethod('GetTask').input, { id }));
    expect([grpc.status.NOT_FOUND, grpc.status.INVALID_ARGUMENT]).toContain(error?.code);
  });

  it('refuses a call without a credential or with a wrong one as UNAUTHENTICATED', async () => {
    expect((await call('GetTask', jsonToMessage(grpcMethod('GetTask').input, { id: 't' }), null)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await call('GetTask', jsonToMessage(grpcMethod('GetTask').input, { id: 't' }), 'wrong')).error?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('refuses an A2A-Version it does not serve with FAILED_PRECONDITION and VERSION_NOT_SUPPORTED', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${TOKEN}`);
    metadata.set('a2a-version', '0.3');
    const error = await new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest(grpcMethod('GetTask').path, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, jsonToMessage(grpcMethod('GetTask').input, { id: 't' }), metadata, {}, (e) => resolve(e)),
    );
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(detailsOfStatus(error?.metadata.get('grpc-status-details-bin')[0] as Buffer)).toContainEqual(expect.objectContaining({ reason: 'VERSION_NOT_SUPPORTED' }));
  });

  it('answers a method the service does not have with UNIMPLEMENTED', async () => {
    const error = await new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest('/lf.a2a.v1.A2AService/Nope', (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, new Uint8Array(), new grpc.Metadata(), {}, (e) => resolve(e)),
    );
    expect(error?.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
