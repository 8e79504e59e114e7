// The hub's live feed (`GET /hub/v1/events`), read as a watcher such as the console would, with
// real processes: the state first, then agents registering, their tasks with progress, an agent
// that stops answering heartbeats going down and coming back, and a watcher that reconnects
// with Last-Event-ID getting what it missed.
import { describe, expect, it } from 'vitest';
import { SseParser } from '../../src/net/sse.js';
import { startAgent, startHub, until } from './hub-processes.js';

interface FeedEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** Follows the feed in the background; `events` fills as they come. */
function watch(url: string, lastEventId?: string): { events: FeedEvent[]; stop(): void } {
  const events: FeedEvent[] = [];
  const stop = new AbortController();
  void (async () => {
    const response = await fetch(`${url}/hub/v1/events`, { headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId }, signal: stop.signal });
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(decoder.decode(bytes, { stream: true }))) events.push({ id: event.id, event: event.event, data: JSON.parse(event.data) as Record<string, unknown> });
    }
  })().catch(() => undefined);
  return { events, stop: () => stop.abort() };
}

const health = (events: FeedEvent[], id: string): { up: boolean; reason?: string }[] =>
  events.filter((e) => e.event === 'agent.health' && e.data.agentId === id).map((e) => e.data.health as { up: boolean; reason?: string });

describe('the hub live feed', () => {
  it('starts with the state, then tells of agents, tasks with their progress, and health', async () => {
    const hub = await startHub(['--store', 'memory', '--heartbeat', '1']);
    const feed = watch(hub.url);
    await until(() => feed.events[0], 5000, 'the snapshot');
    expect(feed.events[0]).toMatchObject({ event: 'snapshot', data: { agents: [], tasks: [] } });

    const agent = await startAgent(hub.url, 'worker');
    await until(() => feed.events.find((e) => e.event === 'agent.registered'), 10_000, 'registration');
    expect(feed.events.find((e) => e.event === 'agent.registered')?.data).toMatchObject({ agentId: 'worker', kind: 'connected', name: 'Agent worker' });

    const sent = await fetch(`${hub.url}/agents/worker/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ message: { messageId: 'm-feed', role: 'ROLE_USER', parts: [{ text: 'slow 3' }] } }) });
    expect(sent.status).toBe(200);
    // The blocking send answers once done; the task was seen as it went only if it streamed, so
    // follow a streamed one too.
    const streamed = await fetch(`${hub.url}/agents/worker/message:stream`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ message: { messageId: 'm-feed-2', role: 'ROLE_USER', parts: [{ text: 'slow 3' }] } }) });
    await streamed.text();
    const taskEvents = (): { state: string; progress?: number; text?: string }[] => feed.events.filter((e) => e.event === 'task').map((e) => e.data.task as { state: string; progress?: number; text?: string });
    // The feed is read on its own connection: its last events may come just after the stream's.
    await until(() => (taskEvents().filter((t) => t.state === 'completed').length === 2 ? true : undefined), 5000, 'both tasks completed on the feed');
    const tasks = taskEvents();
    const steps = tasks.filter((t) => t.state === 'working' && t.progress !== undefined).map((t) => [t.progress, t.text]);
    expect(steps).toEqual([
      [25, 'step 1 of 3'],
      [50, 'step 2 of 3'],
      [75, 'step 3 of 3'],
    ]);
    expect(tasks.filter((t) => t.state === 'completed').length).toBe(2);
    expect(feed.events.some((e) => e.event === 'task' && (e.data.event as Record<string, unknown>).statusUpdate !== undefined)).toBe(true);

    // Frozen, it misses its heartbeats and goes down; thawed, it dials in again and is up.
    agent.child.kill('SIGSTOP');
    await until(() => health(feed.events, 'worker').some((h) => !h.up) || undefined, 15_000, 'worker down');
    // The hub says that it noticed, how, and when.
    expect(health(feed.events, 'worker').find((h) => !h.up)?.reason).toMatch(/^the hub noticed: no answer to pings for [\d.]+ s \(a ping every 1 s, 2 missed\), at \d{4}-/);
    const downAt = feed.events.length;
    agent.child.kill('SIGCONT');
    await until(() => health(feed.events.slice(downAt), 'worker').some((h) => h.up) || undefined, 20_000, 'worker up again');

    // A watcher that comes back with the last id it saw gets the rest, without a new snapshot.
    const missedFrom = feed.events[3] as FeedEvent;
    const again = watch(hub.url, missedFrom.id);
    await until(() => (again.events.length >= feed.events.length - 4 ? true : undefined), 5000, 'the missed events');
    expect(again.events[0]?.event).not.toBe('snapshot');
    expect(again.events.slice(0, 3).map((e) => e.id)).toEqual(feed.events.slice(4, 7).map((e) => e.id));
    feed.stop();
    again.stop();
  }, 60_000);
});
