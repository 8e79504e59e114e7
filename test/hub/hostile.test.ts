// Hostile input to every hub endpoint, over real HTTP on 127.0.0.1 against a hub in this
// process: malformed and oversized JSON, bad ids, bad frames from a connected agent. Each gets
// one clear error naming what was wrong, never a 5xx, and the registry is left as it was.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createHubHandler } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { SseParser } from '../../src/net/sse.js';
import { listen, type Listening } from '../../src/net/node-http.js';

const open: { hub: Hub; server: Listening }[] = [];
afterEach(async () => {
  for (const { hub, server } of open.splice(0)) {
    hub.close();
    await server.close();
  }
});

async function startHub(): Promise<{ url: string; hub: Hub }> {
  let url = '';
  const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0, graceMs: 0 });
  const server = await listen(createHubHandler(hub, { onError: (error) => void expect.fail(`the hub failed on its own: ${String(error)}`) }), { port: 0, requestTimeout: 0 });
  url = server.url;
  open.push({ hub, server });
  return { url, hub };
}

async function errorOf(response: Response): Promise<{ status: number; message: string }> {
  const body = (await response.json()) as { error?: { message: string }; message?: string };
  return { status: response.status, message: body.error?.message ?? body.message ?? '' };
}

const post = (url: string, body: string): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('hostile input to the hub', () => {
  it.each([
    ['/hub/v1/agents', '{"url": ', 400, 'the request body is not valid JSON'],
    ['/hub/v1/agents', '[1]', 400, 'the request body is a JSON object'],
    ['/hub/v1/agents', '{"id": "x"}', 400, 'a registration is {"url": "<the agent\'s base URL or card URL>", "id"?: "<id>", "shared"?: true}'],
    ['/hub/v1/agents', '{"url": "http://127.0.0.1:1", "shared": "yes"}', 400, '"shared" is true or false'],
    ['/hub/v1/agents', '{"url": "ftp://x"}', 400, '"url" is an http or https URL'],
    ['/hub/v1/agents', '{"url": "not a url"}', 400, '"url" is not an absolute URL'],
    ['/hub/v1/agents', '{"url": "http://127.0.0.1:1", "id": 5}', 400, '"id" is a string'],
    ['/hub/v1/agents', `{"url": "${'x'.repeat(70_000)}"}`, 413, 'a hub API body is at most 65536 bytes'],
    ['/ard/search', '{"query": 3}', 400, 'an ARD search is {"query": {"text": "…", "filter"?: {…}}}'],
  ])('POST %s %s → %i %s', async (path, body, status, message) => {
    const { url } = await startHub();
    expect(await errorOf(await post(`${url}${path}`, body))).toEqual({ status, message });
  });

  it('refuses a body over the adapter limit, bad ids, and unknown paths', async () => {
    const { url } = await startHub();
    expect((await post(`${url}/hub/v1/agents`, 'x'.repeat(5 * 1024 * 1024))).status).toBe(413);
    expect(await errorOf(await fetch(`${url}/hub/v1/connect?agent=../etc`))).toEqual({ status: 400, message: 'an agent id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' });
    expect(await errorOf(await fetch(`${url}/hub/v1/route`))).toEqual({ status: 400, message: 'name the skill: /hub/v1/route?skill=S' });
    expect(await errorOf(await fetch(`${url}/agents/nobody/message:send`, { method: 'POST', body: '{}' }))).toEqual({ status: 404, message: 'no agent "nobody" is registered at this hub' });
    expect(await errorOf(await fetch(`${url}/hub/v1/agents/nobody`, { method: 'DELETE' }))).toEqual({ status: 404, message: 'no agent "nobody" is registered at this hub' });
    expect(await errorOf(await fetch(`${url}/nowhere`))).toEqual({ status: 404, message: 'nothing at /nowhere on this hub; see docs/hub.md' });
    for (const [path, escape] of [
      ['/agents/%E0%A4%A/message:send', '%A/'],
      ['/agents/%ZZ/.well-known/agent-card.json', '%ZZ'],
      ['/hub/v1/agents/%E0%A4%A', '%A'],
    ]) {
      expect(await errorOf(await fetch(`${url}${path}`)), path).toEqual({ status: 400, message: `the path holds "${escape}", which is not valid percent-encoding (% and two hex digits, of UTF-8)` });
    }
    expect(await errorOf(await post(`${url}/hub/v1/connect/00000000-0000-0000-0000-000000000000`, '{"frames": []}'))).toEqual({ status: 404, message: 'no such relay session; connect again' });
  });

  it('answers bad frames from a connected agent with the error, and keeps the connection', async () => {
    const { url, hub } = await startHub();
    const stream = await fetch(`${url}/hub/v1/connect?agent=rogue`);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const parser = new SseParser();
    let hello: { session: string } | undefined;
    while (hello === undefined) {
      const { value } = await reader.read();
      for (const event of parser.push(new TextDecoder().decode(value))) {
        const frame = JSON.parse(event.data) as { type: string; session: string };
        if (frame.type === 'hello') hello = frame;
      }
    }
    const at = `${url}/hub/v1/connect/${hello.session}`;
    expect(await errorOf(await post(at, 'nope'))).toEqual({ status: 400, message: 'the relay post is not valid JSON' });
    expect(await errorOf(await post(at, '{"frames": [{"type": "head", "rid": "r", "status": 700, "headers": {}}]}'))).toEqual({ status: 400, message: 'frame 0: "status" is an HTTP status from 200 to 599' });
    // An answer to a request never made is dropped; the session stays.
    expect((await post(at, '{"frames": [{"type": "response", "rid": "never", "status": 200, "headers": {}, "body": "x"}]}')).status).toBe(200);
    expect(hub.relay.sessionOf(hello.session)).toEqual({ agentId: 'rogue', principal: 'anonymous' });
    await reader.cancel();
  });

  it('never answers any JSON posted to its endpoints with a 5xx', async () => {
    const { url } = await startHub();
    const paths = ['/hub/v1/agents', '/ard/search', '/agents/x/message:send', '/hub/v1/connect/00000000-0000-0000-0000-000000000000'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue(), async (path, value) => {
        const response = await post(`${url}${path}`, JSON.stringify(value));
        await response.arrayBuffer();
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });
});
