// A stream's slow reader over gRPC, with raw @grpc/grpc-js as the client: the reader stops
// reading while the task sends a flood of updates and goes on once the task has ended. Within
// the backlog, the server waits for the stream to drain and every update arrives, in order; past
// it (--max-stream-backlog), the stream ends with RESOURCE_EXHAUSTED and the task is not held up.
// Counted in messages, never timed.
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler, createAgent, serveGrpc, type GrpcServer } from '../../src/server.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { grpcMethod, jsonToMessage, messageToJson } from '../../src/grpc/service.js';

const WORDS = 'x'.repeat(1000);
let roomy: GrpcServer;
let tight: GrpcServer;
let client: grpc.Client;

beforeAll(async () => {
  // "flood N": N working updates of about 1 KB each, then the result.
  const agent = createAgent({
    card: jiajiaCard(),
    async onTask(task, ctx) {
      const count = Number(/^flood (\d+)$/.exec(task.text)?.[1] ?? 0);
      for (let i = 0; i < count; i += 1) await ctx.status('working', { message: `${i} ${WORDS}` });
      return `flooded ${count}`;
    },
  });
  const handler = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:1' });
  roomy = await serveGrpc(handler, { maxStreamBacklogBytes: 8 * 1024 * 1024 });
  tight = await serveGrpc(handler, { maxStreamBacklogBytes: 16 * 1024 });
  client = new grpc.Client(roomy.target, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client.close();
  await roomy.close(100);
  await tight.close(100);
});

const bytes = (value: Uint8Array): Buffer => Buffer.from(value);

/** The task's state, asked with GetTask. */
function stateOf(id: string): Promise<string> {
  const method = grpcMethod('GetTask');
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(method.path, bytes, (b: Buffer) => b, jsonToMessage(method.input, { id, historyLength: 0 }), new grpc.Metadata(), (error, answer) =>
      error ? reject(error) : resolve(String((messageToJson(method.output, answer!) as { status: { state: string } }).status.state)),
    ),
  );
}

/**
 * Sends "flood N" as a stream on `server` and reads nothing until the task has ended (asked
 * with GetTask over another connection), then reads the rest: the events read and how the stream ended.
 */
async function readLate(server: GrpcServer, count: number): Promise<{ events: Record<string, unknown>[]; ended: grpc.StatusObject | grpc.ServiceError }> {
  const reader = new grpc.Client(server.target, grpc.credentials.createInsecure());
  const method = grpcMethod('SendStreamingMessage');
  const call = reader.makeServerStreamRequest(method.path, bytes, (b: Buffer) => b, jsonToMessage(method.input, { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `flood ${count}` }] } }), new grpc.Metadata());
  const events: Record<string, unknown>[] = [];
  let first: ((event: Record<string, unknown>) => void) | undefined;
  const firstEvent = new Promise<Record<string, unknown>>((resolve) => (first = resolve));
  const ended = new Promise<grpc.StatusObject | grpc.ServiceError>((resolve) => {
    call.on('error', resolve);
    call.on('status', (status: grpc.StatusObject) => status.code === grpc.status.OK && resolve(status));
  });
  call.on('data', (data: Buffer) => {
    const event = messageToJson(method.output, data);
    events.push(event);
    if (events.length === 1) {
      // The first event names the task; then the reader stops, as a slow one does.
      call.pause();
      first?.(event);
    }
  });
  const { task } = (await firstEvent) as { task: { id: string } };
  for (let tries = 0; tries < 2000 && (await stateOf(task.id)) !== 'TASK_STATE_COMPLETED'; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await stateOf(task.id)).toBe('TASK_STATE_COMPLETED');
  call.resume();
  const end = await ended;
  reader.close();
  return { events, ended: end };
}

describe('a slow reader of a gRPC stream', () => {
  it('gets every update, in order, when it stays within the backlog: the server waits for the stream to drain', async () => {
    // 600 updates of 1 KB: far past HTTP/2's flow-control window, well within 8 MiB.
    const { events, ended } = await readLate(roomy, 600);
    expect(ended.code).toBe(grpc.status.OK);
    const updates = events.filter((event) => 'statusUpdate' in event).map((event) => (event as { statusUpdate: { status: { state: string; message?: { parts: { text: string }[] } } } }).statusUpdate.status);
    const working = updates.filter((status) => status.state === 'TASK_STATE_WORKING').map((status) => Number(status.message?.parts[0]?.text.split(' ')[0]));
    expect(working).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(updates.at(-1)?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('is cut off with RESOURCE_EXHAUSTED past the backlog, having had fewer than all, and the task still ends', async () => {
    const { events, ended } = await readLate(tight, 500);
    expect(ended.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(ended.details).toMatch(/fell more than 16384 bytes behind; subscribe again/);
    expect(events.length).toBeGreaterThan(1);
    expect(events.length).toBeLessThan(500);
  });
});
