// The official @a2a-js/sdk serving an echo agent with express and its in-memory store: the
// peer implementation a2a-lite is compared with.
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Role, TaskState } from '@a2a-js/sdk';
import express from 'express';

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'Echo', description: 'echo', version: '1.0.0',
    supportedInterfaces: [{ url: `${base}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: undefined, documentationUrl: '', iconUrl: '',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
  const executor = {
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
  void Role;
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  console.log(`READY ${base}/jsonrpc`);
});
