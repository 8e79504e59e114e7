// `a2a-lite serve --push` with webhooks down, slow and answering 500 beside a healthy one: sends
// and the healthy webhook stay fast, failures are retried with backoff, and what is pending when
// the server is SIGKILLed arrives once the targets and the server are back.
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { eventually } from '../fixtures/webhook.js';
import { A2AClient, stateOf, userMessage, type Json } from './a2a-calls.js';
import { killHard, sleep, startServe, type ServeProcess } from './serve-process.js';
import { eventOf, refusedPort, startTarget, type Arrival, type Target } from './webhook-target.js';

const SERVE_ARGS = ['--store', 'sqlite', '--push', '--allow-private-webhooks'];
/** Quick, except a task whose text says "linger", which gives time to add configs to it. */
const EXEC = 'input=$(cat); case "$input" in *linger*) sleep 2;; esac; echo done';
const SLOW_MS = 6_000;
/** `… attempt N of 6 failed (REASON); trying again in X s`, as push-sender.ts logs it. */
const RETRY_LINE = /push: task (\S+): (\S+): attempt (\d+) of 6 failed \(([^)]*)\); trying again in ([\d.]+) s/g;

interface Retry {
  taskId: string;
  origin: string;
  attempt: number;
  reason: string;
  waitS: number;
}

/** A delivery's attempts: the requests that carried the same body. */
function attemptsByBody(arrivals: readonly Arrival[]): Arrival[][] {
  const groups = new Map<string, Arrival[]>();
  for (const arrival of arrivals) groups.set(arrival.body, [...(groups.get(arrival.body) ?? []), arrival]);
  return [...groups.values()];
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

describe('a2a-lite serve --push with webhooks that fail', () => {
  it('keeps sends and a healthy webhook fast, retries with backoff, and delivers what was pending after SIGKILL and restart', async () => {
    const started = Date.now();
    const home = tempHome('webhook-faults');
    expect(cli(['card', 'init', '--id', 'pusher', '--name', 'Pusher', '--skill', 'echo:Echo:answers done'], { home }).code).toBe(0);
    const healthy = await startTarget({ status: 200 });
    const slow = await startTarget({ status: 200, delayMs: SLOW_MS });
    const failing = await startTarget({ status: 500 });
    const downPort = await refusedPort();
    const downUrl = `http://127.0.0.1:${downPort}/hook`;

    let server: ServeProcess = await startServe(home, EXEC, SERVE_ARGS);
    let client = new A2AClient(server.info.jsonrpc);
    const send = async (text: string, url: string): Promise<{ task: Json; ms: number }> => {
      const before = Date.now();
      const answer = await client.call('SendMessage', { message: userMessage(text), configuration: { taskPushNotificationConfig: { url } } });
      const task = answer.result?.task as Json | undefined;
      if (task === undefined) throw new Error(`SendMessage "${text}": ${JSON.stringify(answer.error)}`);
      expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
      return { task, ms: Date.now() - before };
    };
    /** How long the healthy webhook took to hear of each status, from the status's own timestamp. */
    const healthyDelays = (from: number): number[] =>
      healthy.arrivals
        .filter((a) => a.at >= from)
        .flatMap((a) => {
          const stamp = eventOf(a.json).timestamp;
          return stamp === undefined ? [] : [a.at - Date.parse(stamp)];
        });

    // The baseline: sends with the healthy webhook only.
    const baselineFrom = Date.now();
    const baseline: number[] = [];
    for (let i = 0; i < 6; i += 1) baseline.push((await send(`baseline ${i}`, healthy.url)).ms);
    await eventually(() => expect(healthy.delivered.length).toBeGreaterThanOrEqual(6 * 3));
    const baselineDelays = healthyDelays(baselineFrom);

    // Tasks whose only webhook is down, slow or failing, three of each.
    const faultFrom = Date.now();
    const faulty: { target: 'down' | 'slow' | 'failing'; id: string }[] = [];
    const faultLatency: number[] = [];
    const urls = { down: downUrl, slow: slow.url, failing: failing.url };
    for (const target of ['down', 'slow', 'failing'] as const) {
      for (let i = 0; i < 3; i += 1) {
        const { task, ms } = await send(`to a ${target} webhook ${i}`, urls[target]);
        faulty.push({ target, id: task.id as string });
        faultLatency.push(ms);
      }
    }
    // A task with all four: the healthy one given with the message, the other three added while it runs.
    const mixed = await client.call('SendMessage', { message: userMessage('linger with four webhooks'), configuration: { returnImmediately: true, taskPushNotificationConfig: { url: healthy.url } } });
    const mixedId = (mixed.result?.task as Json).id as string;
    for (const target of ['down', 'slow', 'failing'] as const) {
      const made = await client.call('CreateTaskPushNotificationConfig', { taskId: mixedId, url: urls[target] });
      expect(made.error).toBeUndefined();
      faulty.push({ target, id: mixedId });
    }

    // Other tasks meanwhile, with the healthy webhook: neither they nor their webhook may wait.
    const healthyIds: string[] = [];
    const deadline = Date.now() + 5_500;
    while (Date.now() < deadline) {
      const { task, ms } = await send(`while webhooks fail ${healthyIds.length}`, healthy.url);
      healthyIds.push(task.id as string);
      faultLatency.push(ms);
      await sleep(150);
    }
    const sentUnderFault = healthyIds.length;
    // The failing targets have by now been tried three times each: at once, then after 1–2 s, then 2–4 s.
    await eventually(() => expect(attemptsByBody(failing.arrivals).filter((tries) => tries.length >= 3).length).toBeGreaterThanOrEqual(4), 20_000);
    const faultDelays = healthyDelays(faultFrom);
    await eventually(() => expect(healthy.delivered.filter((a) => eventOf(a.json).taskId === mixedId).map((a) => eventOf(a.json).state).at(-1)).toBe('TASK_STATE_COMPLETED'));

    // Retries, from the server's log and from when the 500 target saw each attempt.
    const retries: Retry[] = [...server.stderr().matchAll(RETRY_LINE)].map((m) => ({
      taskId: m[1] as string,
      origin: m[2] as string,
      attempt: Number(m[3]),
      reason: m[4] as string,
      waitS: Number(m[5]),
    }));
    for (const retry of retries) {
      // 2 s doubling after each failure, each wait cut by up to half at random.
      const base = 2 * 2 ** (retry.attempt - 1);
      expect(retry.waitS, JSON.stringify(retry)).toBeGreaterThanOrEqual(base / 2 - 0.05);
      expect(retry.waitS, JSON.stringify(retry)).toBeLessThanOrEqual(base + 0.05);
    }
    const downOrigin = `http://127.0.0.1:${downPort}`;
    const failingOrigin = new URL(failing.url).origin;
    for (const { target, id } of faulty.filter((f) => f.target !== 'slow')) {
      const origin = target === 'down' ? downOrigin : failingOrigin;
      const mine = retries.filter((r) => r.taskId === id && r.origin === origin);
      expect(mine.map((r) => r.attempt).slice(0, 2), `${target} webhook of ${id}`).toEqual([1, 2]);
      expect(mine[0]?.reason).toBe(target === 'down' ? 'ECONNREFUSED' : 'HTTP 500');
    }
    const gaps = attemptsByBody(failing.arrivals).filter((tries) => tries.length >= 3).map((tries) => [tries[1]!.at - tries[0]!.at, tries[2]!.at - tries[1]!.at]);
    // The waits were really made (the log above pins how long each was to be); a busy machine
    // can only make a gap longer, so only its lower end is checked.
    for (const [first, second] of gaps) {
      expect(first).toBeGreaterThanOrEqual(950);
      expect(second).toBeGreaterThanOrEqual(1_950);
    }
    // The slow webhook is still being answered, one delivery per task at a time.
    expect(slow.arrivals.length).toBeGreaterThanOrEqual(4);

    // Nothing waits for a webhook: a send or a healthy delivery held up behind the slow target
    // would take at least its SLOW_MS, and one held behind a failing target far longer.
    expect(Math.max(...faultLatency)).toBeLessThan(SLOW_MS);
    expect(Math.max(...faultDelays)).toBeLessThan(SLOW_MS);
    await eventually(() => {
      for (const id of healthyIds) {
        const events = healthy.delivered.map((a) => eventOf(a.json)).filter((e) => e.taskId === id);
        expect(events[0]?.kind).toBe('task');
        expect(events.at(-1)?.state).toBe('TASK_STATE_COMPLETED');
      }
    });

    // Kill the server while deliveries are pending; bring the targets up; restart on the same home.
    const before = { failingTries: failing.arrivals.length, slowDelivered: slow.delivered.length };
    await killHard(server);
    client.close();
    const killedAt = Date.now();
    const down: Target = await startTarget({ status: 200 }, downPort);
    failing.behaviour = { status: 200 };
    slow.behaviour = { status: 200 };
    server = await startServe(home, EXEC, SERVE_ARGS);
    client = new A2AClient(server.info.jsonrpc);
    const targets = { down, slow, failing };
    const statesAt = (target: Target, id: string) => target.delivered.map((a) => eventOf(a.json)).filter((e) => e.taskId === id);
    await eventually(() => {
      for (const { target, id } of faulty) expect(statesAt(targets[target], id).at(-1)?.state, `${target} webhook of ${id}`).toBe('TASK_STATE_COMPLETED');
    }, 15_000);
    // Each in order: the task first (for a config made with the message), its end last.
    for (const { target, id } of faulty) {
      const events = statesAt(targets[target], id);
      if (id !== mixedId) expect(events[0]?.kind, `${target} webhook of ${id}`).toBe('task');
      const order = events.map((e) => ['task', 'artifactUpdate', 'statusUpdate'].indexOf(e.kind));
      expect(order, `${target} webhook of ${id}`).toEqual([...order].sort((a, b) => a - b));
    }
    const survived = [down, failing, slow].reduce((n, target) => n + target.delivered.filter((a) => a.at > killedAt).length, 0);
    expect(down.delivered.length).toBeGreaterThanOrEqual(3 * 3 + 2);
    // The restarted server answers without waiting for the deliveries it took up again.
    expect((await send('after the restart', healthy.url)).ms).toBeLessThan(SLOW_MS);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    client.close();

    console.log(
      `webhook faults: SendMessage median ${median(baseline)} ms alone, ${median(faultLatency)} ms (max ${Math.max(...faultLatency)}) with ` +
        `${faulty.length} failing webhooks; healthy webhook delay median ${median(baselineDelays)} ms alone, ${median(faultDelays)} ms ` +
        `(max ${Math.max(...faultDelays)}) under fault over ${sentUnderFault} tasks; ${retries.length} failed attempts retried with backoff ` +
        `(${before.failingTries} requests answered 500); ${survived} deliveries survived SIGKILL and arrived after the restart ` +
        `(down ${down.delivered.length}, 500 ${failing.delivered.length}, slow ${slow.delivered.length - before.slowDelivered}); ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 60_000);
});
