// What the trace says of a plan run: the run is one `invoke_workflow` span (the GenAI agent
// conventions), each attempt of a step an `invoke_agent` CLIENT span inside it, whose A2A calls
// (SendMessage, SubscribeToTask, GetTask) are its children and carry it to the agent. Each is
// given its parent: the run's span, the step's, as the API's active context is not carried.

import type { Attributes, Context } from '@opentelemetry/api';
import { a2aTaskState } from '../telemetry/a2a-attributes.js';
import { inSpan, SpanKind } from '../telemetry/spans.js';
import type { StepEnd, Target } from './plan.js';
import type { RunRecord } from './run-state.js';

/**
 * Runs `execute` (the whole run, started or resumed) in its `invoke_workflow` span, a child of
 * `parent`; `execute` gets the span's context, the parent of the steps' spans.
 */
export function tracedRun<T>(run: RunRecord, how: 'started' | 'resumed', parent: Context | undefined, execute: (trace: Context | undefined) => Promise<T>): Promise<T> {
  const name = run.name === undefined || run.name === '' ? 'invoke_workflow' : `invoke_workflow ${run.name}`;
  const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.conversation.id': run.contextId, 'a2a_lite.run.id': run.id, 'a2a_lite.run.how': how };
  if (run.name !== undefined && run.name !== '') attributes['gen_ai.workflow.name'] = run.name;
  return inSpan(name, SpanKind.INTERNAL, attributes, (span) => execute(span.context), parent);
}

/**
 * Runs one attempt of step `step` at `target` in its `invoke_agent` span, a child of `parent`
 * (the run's); the span notes how it ended, and `attempt` gets its context for the A2A calls.
 */
export function tracedAttempt(run: RunRecord, step: string, target: Target, parent: Context | undefined, attempt: (trace: Context | undefined) => Promise<StepEnd>): Promise<StepEnd> {
  const agent = 'agent' in target ? target.agent : undefined;
  const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': run.contextId, 'a2a_lite.step': step };
  if (agent !== undefined) attributes['gen_ai.agent.name'] = agent;
  else attributes['a2a_lite.skill'] = (target as { skill: string }).skill;
  return inSpan(
    agent === undefined ? 'invoke_agent' : `invoke_agent ${agent}`,
    SpanKind.CLIENT,
    attributes,
    async (span) => {
      const ended = await attempt(span.context);
      if (ended !== 'skipped') span.set({ 'a2a.task.state': a2aTaskState(ended) });
      return ended;
    },
    parent,
  );
}
