import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../net/http-types.js';
import { Relay } from './relay.js';

const request = (signal?: AbortSignal): HttpRequest => ({ method: 'POST', path: '/agents/a/jsonrpc', query: new URLSearchParams(), headers: { authorization: 'Bearer secret', 'content-type': 'application/json' }, body: '{}', ...(signal === undefined ? {} : { signal }) });

/** A relay with one connected agent `a`, and the frames sent down to it so far. */
function connected(graceMs = 0): { relay: Relay; session: string; down: () => Promise<Record<string, unknown>[]>; events: string[] } {
  const events: string[] = [];
  const relay = new Relay({ observer: { up: (id) => events.push(`up ${id}`), down: (id, why) => events.push(`down ${id}: ${why}`), latency: () => undefined }, graceMs, heartbeatMs: 60_000 });
  const opened = relay.open('a', 'http://hub/agents/a', 'p', true);
  const reader = (opened as Extract<HttpResponse, { events: AsyncIterable<string> }>).events[Symbol.asyncIterator]();
  const down = async (): Promise<Record<string, unknown>[]> => {
    const next = await reader.next();
    return String(next.value).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  };
  return { relay, session: opened.session, down, events };
}

describe('the relay', () => {
  it('sends a request down without the caller\'s credentials and answers it with the agent\'s response', async () => {
    const { relay, session, down } = connected();
    expect((await down())[0]).toMatchObject({ type: 'hello', agentId: 'a', baseUrl: 'http://hub/agents/a' });
    const answer = relay.forward('a', request(), '/jsonrpc', 'HUB_ALICE');
    const [sent] = await down();
    expect(sent).toMatchObject({ type: 'request', method: 'POST', path: '/jsonrpc', headers: { 'content-type': 'application/json' }, principal: 'HUB_ALICE' });
    expect((sent?.headers as Record<string, string>).authorization).toBeUndefined();
    relay.accept(session, [{ type: 'response', rid: sent?.rid as string, status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":1}' }]);
    expect(await answer).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":1}' });
    relay.close();
  });

  it('settles a request whose client went away, and tells the agent', async () => {
    const { relay, down } = connected();
    await down();
    const gone = new AbortController();
    const answer = relay.forward('a', request(gone.signal), '/jsonrpc', 'HUB_ALICE');
    const [sent] = await down();
    gone.abort();
    expect((await answer).status).toBe(408);
    expect(await down()).toEqual([{ type: 'abort', rid: sent?.rid }]);
    relay.close();
  });

  it('fails what is unanswered when the connection closes, and says the agent is down', async () => {
    const { relay, down, events } = connected();
    await down();
    const answer = relay.forward('a', request(), '/jsonrpc', 'HUB_ALICE');
    await down();
    relay.close();
    const response = await answer;
    expect(response.status).toBe(502);
    // Sent down an event stream and not acknowledged: the hub cannot say the agent had it.
    expect('body' in response && response.body).toContain('it may not have reached the agent');
    expect(response.headers['a2a-lite-delivery']).toBe('unknown');
    expect(events).toEqual([expect.stringMatching(/^up a$/), expect.stringMatching(/^down a: the hub ended it: the hub is stopping, at \d{4}-\d\d-\d\dT/)]);
    expect(relay.isConnected('a')).toBe(false);
  });

  it('waits the grace period for an agent that is not connected, then answers 503', async () => {
    const relay = new Relay({ observer: { up: () => undefined, down: () => undefined, latency: () => undefined }, graceMs: 20 });
    const response = await relay.forward('nobody', request(), '/jsonrpc', 'HUB_ALICE');
    expect(response.status).toBe(503);
    expect(response.headers['a2a-lite-delivery']).toBe('none');
    expect('body' in response && response.body).toContain('agent nobody is unavailable: it is not connected to the hub; the request was not sent to it');
    relay.close();
  });
});
