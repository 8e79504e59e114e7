// What traces and metrics say of a push notification: each POST to a webhook is a CLIENT span
// (the HTTP conventions: named by its method), carried to the webhook as its traceparent, a
// child of the request whose task made the event while that is known; the outcome counts.

import type { Context } from '@opentelemetry/api';
import type { PushConfig } from '../model/push-config.js';
import { serverAttributes } from '../telemetry/a2a-attributes.js';
import { injectTrace } from '../telemetry/carrier.js';
import { countPush } from '../telemetry/metrics.js';
import { SpanKind, startSpan } from '../telemetry/spans.js';
import type { PostOutcome } from './webhook-post.js';

/**
 * One attempt to deliver to `config`'s webhook, a child of `parent` (the span of the request
 * whose task made the event): `post` gets the headers to send, the trace's included.
 */
export async function tracedPost(config: PushConfig, headers: Record<string, string>, post: (headers: Record<string, string>) => Promise<PostOutcome>, parent?: Context): Promise<PostOutcome> {
  const span = startSpan('POST', SpanKind.CLIENT, { 'http.request.method': 'POST', 'a2a.task.id': config.taskId.slice(0, 256), 'a2a_lite.push': true, ...serverAttributes(config.url) }, parent);
  injectTrace(headers, span.context);
  let outcome: PostOutcome;
  try {
    outcome = await post(headers);
  } catch (error) {
    span.end(error);
    countPush('failed');
    throw error;
  }
  if (outcome.ok) span.end();
  else span.fail(outcome.permanent ? 'permanent' : 'transient', outcome.reason.slice(0, 200));
  countPush(outcome.ok ? 'delivered' : outcome.permanent ? 'failed' : 'retry');
  return outcome;
}
