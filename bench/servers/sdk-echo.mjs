// The official @a2a-js/sdk's echo agent for the bench: its card (with the interfaces given) and
// an executor that answers each message with a task, working, an artifact and completed, as
// a2a-lite's echo does.
import { AgentEvent } from '@a2a-js/sdk/server';
import { TaskState } from '@a2a-js/sdk';

/** The card of the echo agent, served at `interfaces`. */
export const echoCard = (interfaces) => ({
  name: 'Echo', description: 'echo', version: '1.0.0',
  supportedInterfaces: interfaces.map(([url, protocolBinding]) => ({ url, protocolBinding, protocolVersion: '1.0', tenant: '' })),
  provider: undefined, documentationUrl: '', iconUrl: '',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
});

const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

export const echoExecutor = {
  async execute(ctx, bus) {
    const input = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const at = () => new Date().toISOString();
    const status = (state) => AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: { state, message: undefined, timestamp: at() }, metadata: undefined });
    bus.publish(AgentEvent.task(ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: at() }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    bus.publish(AgentEvent.artifactUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'echo', name: 'echo', description: '', parts: [text(`echo: ${input}`)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  },
  async cancelTask() {},
};
