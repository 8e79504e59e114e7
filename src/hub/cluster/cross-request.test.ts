import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBus } from '../../cluster/memory-bus.js';
import type { HttpRequest, HttpResponse } from '../../net/http-types.js';
import { CrossRequests } from './cross-request.js';
import { answersFor, atInstance, moreFor, PART_CHARS, type OpenRequest } from './messages.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

/** A request as the hub forwards it, that can be told its client went away. */
function request(body = '', path = '/message:send'): HttpRequest & { leave(): void } {
  const listeners: (() => void)[] = [];
  return {
    method: 'POST',
    path,
    query: new URLSearchParams('a=1'),
    headers: { 'content-type': 'application/json' },
    body,
    onGone: (listener) => {
      listeners.push(listener);
      return () => listeners.splice(listeners.indexOf(listener), 1);
    },
    leave: () => listeners.splice(0).forEach((listener) => listener()),
  };
}

/** Instance A asking, and instance B played by the test: what B was sent, and how B answers. */
async function pair(answer: (open: OpenRequest, reply: (frame: object) => void) => unknown, options: { pingMs?: number; maxQueued?: number } = {}) {
  const a = new MemoryBus('test.cross');
  const b = a.peer();
  open.push(a, b);
  const gone: string[] = [];
  const cross = new CrossRequests({ bus: a, self: 'A', onGone: (instance) => gone.push(instance), ackMs: 500, ...options });
  open.push(cross);
  await cross.start();
  const more: Record<string, unknown>[] = [];
  const reply = (frame: object): void => b.publish(answersFor('A'), frame);
  const known = new Set<string>();
  await b.respond(atInstance('B'), (message) => {
    const asked = message as OpenRequest | { type: 'ping'; rids: string[] };
    if (asked.type === 'ping') return { known: asked.rids.filter((rid) => known.has(rid)) };
    known.add(asked.rid);
    return answer(asked, reply);
  });
  await b.subscribe(moreFor('B'), (message) => more.push(message as Record<string, unknown>));
  return { cross, more, gone, known, b };
}

const body = async (response: HttpResponse | { miss: string }): Promise<string> => {
  if ('miss' in response) return `miss: ${response.miss}`;
  if ('body' in response) return response.body;
  let text = '';
  for await (const chunk of response.events) text += chunk;
  return text;
};

describe('CrossRequests', () => {
  it('sends a large body in parts after the other instance took it, and gathers a large answer', async () => {
    let opened: OpenRequest | undefined;
    const { cross, more } = await pair((asked, reply) => {
      opened = asked;
      setTimeout(() => {
        reply({ type: 'head', rid: asked.rid, status: 200, headers: { 'content-type': 'application/json' }, stream: false });
        for (const data of ['x'.repeat(PART_CHARS), 'y'.repeat(10)]) reply({ type: 'chunk', rid: asked.rid, data });
        reply({ type: 'end', rid: asked.rid });
      }, 20);
      return { here: true };
    });
    const big = `${'a'.repeat(PART_CHARS)}${'b'.repeat(PART_CHARS)}c`;
    const response = await cross.send('B', 'echo', request(big), '/message:send', 'alice');
    expect(opened).toMatchObject({ agentId: 'echo', method: 'POST', path: '/message:send', query: 'a=1', principal: 'alice', parts: 2, body: 'a'.repeat(PART_CHARS) });
    expect(more.map((m) => [m.type, (m.data as string).length])).toEqual([
      ['part', PART_CHARS],
      ['part', 1],
    ]);
    expect(await body(response)).toBe(`${'x'.repeat(PART_CHARS)}${'y'.repeat(10)}`);
    expect(cross.pending).toBe(0);
  });

  it('takes an answer that came with the word that the request was taken', async () => {
    const { cross } = await pair((asked) => ({ here: true, frame: { type: 'response', rid: asked.rid, status: 201, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' } }));
    const response = await cross.send('B', 'echo', request('{}'), '/message:send', 'alice');
    expect(response).toMatchObject({ status: 201, headers: { 'content-type': 'application/json' } });
    expect(await body(response)).toBe('{"ok":true}');
    expect(cross.pending).toBe(0);
  });

  it('says where the request did not get: an instance not there, or one that holds the link no more', async () => {
    const { cross } = await pair(() => ({ here: false }));
    expect(await body(await cross.send('B', 'echo', request(), '/', 'alice'))).toBe('miss: not-here');
    expect(await body(await cross.send('Z', 'echo', request(), '/', 'alice'))).toBe('miss: gone');
  });

  it('answers 503 with Retry-After, trying nowhere else, when the other instance does not say in time whether it took the request', async () => {
    const { cross } = await pair(() => new Promise(() => undefined));
    const response = await cross.send('B', 'echo', request(), '/', 'alice');
    expect(response).toMatchObject({ status: 503, headers: { 'retry-after': '2' } });
    expect(await body(response)).toContain('did not answer in time; a task the agent may have accepted is still there');
  });

  it('streams the answer, and tells the other instance when the client goes away', async () => {
    let rid = '';
    const { cross, more } = await pair((asked, reply) => {
      rid = asked.rid;
      setTimeout(() => {
        reply({ type: 'head', rid, status: 200, headers: { 'content-type': 'text/event-stream' }, stream: true });
        reply({ type: 'chunk', rid, data: 'data: 1\n\n' });
      }, 5);
      return { here: true };
    });
    const client = request();
    const response = await cross.send('B', 'echo', client, '/message:stream', 'alice');
    if (!('events' in response)) throw new Error('not a stream');
    const reader = response.events[Symbol.asyncIterator]();
    expect((await reader.next()).value).toBe('data: 1\n\n');
    client.leave();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(more).toEqual([{ type: 'abort', from: 'A', rid }]);
    expect((await reader.next()).done).toBe(true);
  });

  it('ends a stream whose client reads too slowly, and stops it at the other instance', async () => {
    const { cross, more } = await pair((asked, reply) => {
      setTimeout(() => {
        reply({ type: 'head', rid: asked.rid, status: 200, headers: {}, stream: true });
        for (let i = 0; i < 10; i += 1) reply({ type: 'chunk', rid: asked.rid, data: 'z'.repeat(100) });
      }, 5);
      return { here: true };
    }, { maxQueued: 450 });
    const response = await cross.send('B', 'echo', request(), '/message:stream', 'alice');
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Nothing was read: four chunks waited, the fifth was one too many.
    expect(await body(response)).toBe('z'.repeat(400));
    expect(more.map((m) => m.type)).toEqual(['abort']);
  });

  it('answers 502 when the instance holding the request dies or forgets it, and tells of the dead one', async () => {
    const { cross, gone, known, b } = await pair(() => ({ here: true }), { pingMs: 20 });
    const forgotten = cross.send('B', 'echo', request(), '/', 'alice');
    await new Promise((resolve) => setTimeout(resolve, 10));
    known.clear();
    const lost = await forgotten;
    expect(lost).toMatchObject({ status: 502 });
    expect(await body(lost)).toContain('stopped before the agent answered; a task it accepted is still at the agent');

    const dying = cross.send('B', 'echo', request(), '/', 'alice');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await b.close();
    expect(await dying).toMatchObject({ status: 502 });
    expect(gone).toContain('B');
  });
});
