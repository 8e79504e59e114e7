// The peer's agent as an @a2a-js/sdk 0.3.x AgentExecutor (A2A 0.3): the same behaviour as the
// 1.x executor, in 0.3's kind-tagged events, with `final` marking the event that ends a turn.
import { randomUUID } from 'node:crypto';
import type { Message, Part, TaskState } from 'a2a-js-sdk-v03';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-js-sdk-v03/server';
import { behave, type PeerPart, type PeerState, type Publisher, type ReceivedFile, type Turn } from './behaviour.js';
import type { AgentRuns } from './runs.js';

const toPart = (out: PeerPart): Part =>
  'text' in out
    ? { kind: 'text', text: out.text }
    : { kind: 'file', file: { name: out.file.name, mimeType: out.file.mediaType, bytes: Buffer.from(out.file.bytes).toString('base64') } };

const agentMessage = (taskId: string, contextId: string, text: string): Message => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'agent',
  parts: [{ kind: 'text', text }],
  taskId,
  contextId,
});

function statusEvent(taskId: string, contextId: string, state: PeerState, text?: string) {
  const status: { state: TaskState; timestamp: string; message?: Message } = { state, timestamp: new Date().toISOString() };
  if (text !== undefined) status.message = agentMessage(taskId, contextId, text);
  // 0.3 ends a stream (and a blocking call) on the first event marked final.
  return { kind: 'status-update' as const, taskId, contextId, status, final: state !== 'working' };
}

function turnOf(ctx: RequestContext): Turn {
  const parts = ctx.userMessage.parts;
  const text = parts.find((p) => p.kind === 'text');
  const files = parts.flatMap<ReceivedFile>((p) =>
    p.kind !== 'file'
      ? []
      : 'bytes' in p.file
        ? [{ name: p.file.name ?? '', size: Buffer.from(p.file.bytes, 'base64').length }]
        : [{ name: p.file.name ?? '', url: p.file.uri }],
  );
  return { text: text?.kind === 'text' ? text.text : '', files, followUp: ctx.task !== undefined };
}

/** An executor running {@link behave} on the 0.3 SDK's event bus. */
export function executorV03(runs: AgentRuns): AgentExecutor {
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      runs.received.push(ctx.userMessage);
      const { taskId, contextId } = ctx;
      bus.publish(
        ctx.task ?? {
          kind: 'task',
          id: taskId,
          contextId,
          status: { state: 'submitted', timestamp: new Date().toISOString() },
          history: [ctx.userMessage],
          artifacts: [],
        },
      );
      const out: Publisher = {
        status: (state, text) => bus.publish(statusEvent(taskId, contextId, state, text)),
        artifact: (name, parts) =>
          bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: randomUUID(), name, parts: parts.map(toPart) }, lastChunk: true }),
        cutStreamAfter: (marker) => runs.cutStreamAfter(ctx.context?.user, marker),
      };
      const signal = runs.start(taskId, contextId);
      try {
        await behave(turnOf(ctx), out, signal);
      } finally {
        runs.end(taskId, signal);
        bus.finished();
      }
    },

    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      bus.publish(statusEvent(taskId, runs.cancel(taskId), 'canceled'));
      bus.finished();
    },
  };
}
