// Tracing without async hooks: the SDK as a2a-lite registers it carries no context across an
// `await`, so every child span must be given its parent. Here each hop waits before it starts
// its child (a run, its step, the A2A call and its headers, the agent's request span, the push
// POST it makes), in one process exporting to a real OTLP receiver; and in a child process, with
// the SDK loaded, no promise hook is on (unless an embedding application turned one on itself).
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { openTransport } from '../../src/client/open-transport.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import type { RunRecord } from '../../src/orchestrate/run-state.js';
import { tracedAttempt, tracedRun } from '../../src/orchestrate/run-trace.js';
import { createAgent, type Agent } from '../../src/runtime/agent.js';
import { startPushSender, type PushSender } from '../../src/serve/push-sender.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { startTelemetry, type Telemetry } from '../../src/telemetry/sdk.js';
import { eventually, startWebhook } from '../fixtures/webhook.js';
import { otlpEnv, startReceiver, type ReceivedSpan, type Receiver } from './otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;

let receiver: Receiver;
let telemetry: Telemetry;
let agent: Agent;
let push: PushSender;
let server: Listening;
let release: () => void = () => {};

beforeAll(async () => {
  receiver = await startReceiver();
  Object.assign(process.env, otlpEnv(receiver));
  telemetry = await startTelemetry({ traces: true, otlpMetrics: false, prometheus: false, serviceName: 'explicit-parents' });
  const gate = new Promise<void>((resolve) => (release = resolve));
  const store = new MemoryTaskStore();
  agent = createAgent({
    card: jiajiaCard(),
    store,
    async onTask(task, ctx) {
      await gate;
      await ctx.status('working');
      return `echo: ${task.text}`;
    },
  });
  push = await startPushSender({ agent, store, allowPrivateNetworks: true });
  let url = '';
  server = await listen(createA2AHandler({ agent, baseUrl: () => url, push }));
  url = server.url;
});

afterAll(async () => {
  release();
  await server.close();
  await push.close();
  await agent.close();
  await telemetry.shutdown();
  await receiver.close();
});

const spanOf = (spans: readonly ReceivedSpan[], id: string | undefined): ReceivedSpan | undefined => spans.find((s) => s.spanId === id);

describe('spans without an async-hooks context manager', () => {
  it('carries no active context across an await: parents must be passed', async () => {
    const marked = ROOT_CONTEXT.setValue(Symbol('mark'), 1);
    const seen = await context.with(marked, async () => {
      const before = context.active();
      await sleep(1);
      return [before, context.active()];
    });
    expect(seen[0]).toBe(marked);
    expect(seen[1]).not.toBe(marked);
  });

  it('keeps run → step → SendMessage → agent request → push POST in one trace, each hop waiting before its child', async () => {
    const hook = await startWebhook();
    const run = { id: 'run-parents', contextId: 'ctx-parents', name: 'parents' } as RunRecord;
    const taskId = await tracedRun(run, 'started', undefined, async (runTrace) => {
      await sleep(5);
      let id = '';
      await tracedAttempt(run, 'one', { agent: 'jiajia' }, runTrace, async (stepTrace) => {
        await sleep(5);
        const transport = openTransport({ url: server.url, binding: 'JSONRPC', version: '1.0' }, { trace: stepTrace });
        const outcome = await transport.send({ messageId: 'm-parents', role: 'user', parts: [{ kind: 'text', text: 'hello' }] }, { returnImmediately: true });
        id = outcome.kind === 'task' ? outcome.task.id : '';
        return 'completed';
      });
      return id;
    });
    await push.save({ taskId, url: hook.url, version: '1.0' });
    release();
    await eventually(() => expect(hook.delivered.length).toBeGreaterThan(0));
    await telemetry.shutdown();

    const spans = receiver.spans.filter((s) => s.service === 'explicit-parents');
    const workflow = spans.find((s) => s.name === 'invoke_workflow parents') as ReceivedSpan;
    const step = spans.find((s) => s.name === 'invoke_agent jiajia') as ReceivedSpan;
    const call = spans.find((s) => s.name === 'SendMessage' && s.kind === CLIENT) as ReceivedSpan;
    const answered = spans.find((s) => s.name === 'SendMessage' && s.kind === SERVER) as ReceivedSpan;
    const posts = spans.filter((s) => s.name === 'POST' && s.kind === CLIENT);
    expect(workflow.parentSpanId).toBeUndefined();
    expect(step.parentSpanId).toBe(workflow.spanId);
    expect(call.parentSpanId).toBe(step.spanId);
    // The request carried the client span as its traceparent.
    expect(answered.parentSpanId).toBe(call.spanId);
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) expect(spanOf(spans, post.parentSpanId)).toBe(answered);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([workflow.traceId]));
    // The webhook was told its POST span as the parent.
    const first = hook.delivered[0]?.headers.traceparent as string;
    expect(posts.map((p) => `00-${p.traceId}-${p.spanId}-01`)).toContain(first);
  }, 30_000);
});

/** What a process with the SDK started sees after an await inside a span: the async ids (0 when no promise hook runs). */
function probeIds(embedderManager: boolean): number[] {
  const script = `
    import { executionAsyncId } from 'node:async_hooks';
    import { context } from '@opentelemetry/api';
    if (${embedderManager}) {
      const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    }
    const { startTelemetry } = await import('./dist/telemetry/sdk.js');
    const { inSpan, SpanKind } = await import('./dist/telemetry/spans.js');
    await startTelemetry({ traces: true, otlpMetrics: false, prometheus: false, serviceName: 'probe' });
    const ids = await inSpan('probe', SpanKind.INTERNAL, {}, async () => {
      await null;
      const first = executionAsyncId();
      await new Promise((resolve) => setTimeout(resolve, 1));
      return [first, executionAsyncId()];
    });
    console.log(JSON.stringify(ids));
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), env: { ...process.env, ...otlpEnv(receiver) }, encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as number[];
}

describe('the SDK as a2a-lite starts it', () => {
  it('turns on no promise hook: after an await, no async id is tracked', () => {
    expect(probeIds(false)).toEqual([0, 0]);
  });

  it('leaves an embedding application its own AsyncLocalStorage manager (whose hooks the probe sees)', () => {
    expect(probeIds(true).every((id) => id > 0)).toBe(true);
  });
});
