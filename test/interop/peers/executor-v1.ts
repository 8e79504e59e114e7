// The peer's agent as an @a2a-js/sdk 1.x AgentExecutor (A2A 1.0): each turn opens with the
// task, as the SDK requires, then the behaviour's calls become status and artifact events.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { behave, type PeerPart, type PeerState, type Publisher, type ReceivedFile, type Turn } from './behaviour.js';
import type { AgentRuns } from './runs.js';

const STATES: Record<PeerState, TaskState> = {
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  'auth-required': TaskState.TASK_STATE_AUTH_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  rejected: TaskState.TASK_STATE_REJECTED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

const part = (content: Part['content'], filename = '', mediaType = 'text/plain'): Part => ({ content, metadata: undefined, filename, mediaType });

const toPart = (out: PeerPart): Part =>
  'text' in out
    ? part({ $case: 'text', value: out.text })
    : part({ $case: 'raw', value: Buffer.from(out.file.bytes) }, out.file.name, out.file.mediaType);

const agentMessage = (taskId: string, contextId: string, text: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [part({ $case: 'text', value: text })],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const statusEvent = (taskId: string, contextId: string, state: PeerState, text?: string) =>
  AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state: STATES[state], message: text === undefined ? undefined : agentMessage(taskId, contextId, text), timestamp: new Date().toISOString() },
    metadata: undefined,
  });

function turnOf(ctx: RequestContext): Turn {
  const parts = ctx.userMessage.parts;
  const text = parts.find((p) => p.content?.$case === 'text')?.content;
  const files = parts.flatMap<ReceivedFile>(({ content, filename }) =>
    content?.$case === 'raw' ? [{ name: filename, size: content.value.length }] : content?.$case === 'url' ? [{ name: filename, url: content.value }] : [],
  );
  return { text: text?.$case === 'text' ? text.value : '', files, followUp: ctx.task !== undefined };
}

/** An executor running {@link behave} on the 1.x SDK's event bus. */
export function executorV1(runs: AgentRuns): AgentExecutor {
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      runs.received.push(ctx.userMessage);
      const { taskId, contextId } = ctx;
      const timestamp = new Date().toISOString();
      bus.publish(
        AgentEvent.task(
          ctx.task ?? {
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp },
            artifacts: [],
            history: [ctx.userMessage],
            metadata: undefined,
          },
        ),
      );
      const out: Publisher = {
        status: (state, text) => bus.publish(statusEvent(taskId, contextId, state, text)),
        artifact: (name, parts) =>
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact: { artifactId: randomUUID(), name, description: '', parts: parts.map(toPart), metadata: undefined, extensions: [] },
              append: false,
              lastChunk: true,
              metadata: undefined,
            }),
          ),
        cutStreamAfter: (marker) => runs.cutStreamAfter(ctx.context.user, marker),
      };
      const signal = runs.start(taskId, contextId);
      try {
        await behave(turnOf(ctx), out, signal);
      } finally {
        runs.end(taskId, signal);
      }
      // No bus.finished(): the 1.x handler settles the bus itself once execute returns.
    },

    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      bus.publish(statusEvent(taskId, runs.cancel(taskId), 'canceled'));
    },
  };
}
