// What the A2A handler does around each call for its operator: the caps on each caller's open
// streams and tasks, the audit trail of calls that change state, and the streams it keeps
// count of (closed when their principal's credential is withdrawn). Also the admission of
// each request by the rate limits, before its body is read.

import type { Agent } from '../../runtime/agent.js';
import type { HttpRequest, HttpResponse, RequestHead } from '../../net/http-types.js';
import { auditedAction, isStreamingMethod, outcomeOf, taskIdOf, tell, type AuditSink } from './audit.js';
import type { Admission } from './auth.js';
import { CAP_RETRY_SECONDS, rateRefusal, type BindingOf, type CallerLimits } from './caller-limits.js';
import type { ErrorReporter } from './error-report.js';
import type { MethodContext } from './methods.js';
import { OpenTasks } from './open-tasks.js';

/** A call as read: its method and params. */
export interface GatedCall {
  method: string;
  params: unknown;
}

export class CallGate {
  private readonly tasks: OpenTasks | undefined;

  constructor(
    agent: Agent,
    private readonly limits: CallerLimits,
    private readonly audit: AuditSink | undefined,
    /** Count streams (a cap on them, or credentials that can be withdrawn). */
    private readonly tracking: boolean,
  ) {
    const max = limits.options.maxTasks;
    this.tasks = max === undefined ? undefined : new OpenTasks(agent, max, limits);
    this.agentId = agent.card.agent.id;
    this.idle = audit === undefined && this.tasks === undefined && limits.options.maxStreams === undefined;
  }

  /** No cap on tasks or streams, no audit trail: a call passes with nothing done around it. */
  private readonly idle: boolean;

  private readonly agentId: string;

  /**
   * Sets the caps of `call` on `context` (checked when the method runs); returns what to call
   * once it ran, with the error it failed with: it writes the audit line and gives the outcome.
   */
  start(call: GatedCall, address: string | undefined, principal: string | undefined, context: MethodContext): (failure?: { error: unknown }) => string {
    // Nothing to cap and nobody to tell: only the outcome is wanted.
    if (this.idle) return outcomeOnly;
    const action = auditedAction(call.method);
    let task = action === undefined ? undefined : taskIdOf(call.params);
    if (isStreamingMethod(call.method) && this.limits.options.maxStreams !== undefined) context.beforeRun = () => this.limits.checkStreams(principal, address);
    if (this.tasks !== undefined || action === 'send') {
      context.onTaskStart = (started) => {
        if (this.tasks !== undefined && principal !== undefined) this.tasks.admit(started, principal, address);
        task = started.id;
      };
    }
    return (failure) => {
      const outcome = failure === undefined ? 'ok' : outcomeOf(failure.error);
      if (action !== undefined) {
        tell(this.audit, { action, ...(principal === undefined ? {} : { principal }), ...(address === undefined ? {} : { address }), agent: this.agentId, ...(task === undefined ? {} : { task }), outcome });
      }
      return outcome;
    };
  }

  /**
   * Runs `run` (the binding running `call`), with the caps checked through `context` and the
   * outcome written to the audit trail; `run` reports the method's failures to the reporter it
   * is given.
   */
  async around(call: GatedCall, request: HttpRequest, principal: string | undefined, context: MethodContext, report: ErrorReporter, run: (report: ErrorReporter) => Promise<HttpResponse>): Promise<HttpResponse> {
    const address = request.remoteAddress;
    const finish = this.start(call, address, principal, context);
    let failure: { error: unknown } | undefined;
    let response = await run((error, where) => {
      failure ??= { error };
      report(error, where);
    });
    // A JSON-RPC error rides in a 200; a caller over its limits is told so in HTTP terms too.
    if (finish(failure) === 'RATE_LIMITED') response = { ...response, status: 429, headers: { ...response.headers, 'retry-after': String(CAP_RETRY_SECONDS) } };
    return this.track(principal ?? address, response);
  }

  /** `response`'s stream counted as `caller`'s, when streams are counted. */
  track(caller: string | undefined, response: HttpResponse): HttpResponse {
    return this.tracking && 'events' in response ? this.limits.streams.track(caller ?? 'unknown', response) : response;
  }

  /** A stream of another binding (gRPC), counted as `caller`'s when streams are counted. */
  trackEvents<T>(caller: string | undefined, events: AsyncIterable<T>): AsyncIterable<T> {
    return this.tracking ? this.limits.streams.events(caller ?? 'unknown', events) : events;
  }
}

/**
 * The rate limits and the audit trail at the door: each request spends a token of its caller
 * before its body is read; a request refused for want of a credential is audited.
 */
export function admission(limits: CallerLimits, audit: AuditSink | undefined, bindingOf: BindingOf): Admission {
  return {
    admit(head: RequestHead, principal: string | undefined) {
      const wait = limits.take(head, principal);
      return wait === undefined ? undefined : rateRefusal(bindingOf(head), wait);
    },
    refused(head: RequestHead, locked: boolean) {
      if (locked) {
        limits.hit('auth-failures', undefined, head.remoteAddress);
        return;
      }
      limits.passed('auth-failures', head.remoteAddress ?? 'unknown');
      tell(audit, { action: 'auth-failure', ...(head.remoteAddress === undefined ? {} : { address: head.remoteAddress }), outcome: 'UNAUTHENTICATED', detail: `${head.method} ${head.path.slice(0, 200)}` });
    },
  };
}

/** The outcome of a call that nothing watches: `ok`, or what it failed with. */
function outcomeOnly(failure?: { error: unknown }): string {
  return failure === undefined ? 'ok' : outcomeOf(failure.error);
}
