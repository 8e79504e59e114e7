// What the trace says of an exec program's turn: a span per run of the program (a child of the
// request that started or resumed the task), and the trace context handed to the program in
// TRACEPARENT and TRACESTATE, so that what it calls (`a2a-lite send`, an SDK) joins the trace.

import type { Attributes, Context } from '@opentelemetry/api';
import { a2aTaskState } from '../telemetry/a2a-attributes.js';
import { traceEnv } from '../telemetry/carrier.js';
import { inSpan, SpanKind } from '../telemetry/spans.js';
import type { Outcome } from './exec-outcome.js';
import type { ExecTask } from './exec-transcript.js';

/** The variables a program never inherits from the server's own environment: only the turn's own. */
export const TRACE_ENV_NAMES: readonly string[] = ['TRACEPARENT', 'TRACESTATE'];

/**
 * Runs one turn of the program in its span: `invoke_agent` (the GenAI agent conventions), a
 * child of `parent` (the request's span, TaskContext.trace), with the task, its context and the
 * state the turn ended in. `turn` gets the variables that hand the span to the program.
 */
export function tracedTurn(task: ExecTask, parent: Context | undefined, turn: (env: Record<string, string>) => Promise<Outcome>): Promise<Outcome> {
  const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent', 'a2a.task.id': task.id, 'gen_ai.conversation.id': task.contextId };
  if (task.skill !== undefined) attributes['a2a_lite.skill'] = task.skill;
  return inSpan(
    'invoke_agent',
    SpanKind.INTERNAL,
    attributes,
    async (span) => {
      const outcome = await turn(traceEnv(span.context));
      span.set({ 'a2a.task.state': a2aTaskState(outcome.state) });
      return outcome;
    },
    parent,
  );
}
