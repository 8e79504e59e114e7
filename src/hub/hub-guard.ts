// The hub's limits per caller and its audit trail: the rate limits at the door (relay posts of
// agents' answers aside), the caps on each caller's open streams and sends in flight, the
// streams it counts (closed, with the relay links, when a token is withdrawn), and the audit
// of what changes state: registrations, removals and the relayed sends, cancels and push configs.

import { auditedAction, isStreamingMethod, outcomeOf, taskIdOf, tell, type AuditAction, type AuditSink } from '../a2a/server/audit.js';
import type { Admission } from '../a2a/server/auth.js';
import { admission } from '../a2a/server/call-gate.js';
import { CAP_RETRY_SECONDS, CallerLimits, type LimitOptions } from '../a2a/server/caller-limits.js';
import { json } from '../a2a/server/http.js';
import { failure, type RestRoute, type RpcCall } from '../a2a/server/request-reading.js';
import { restError } from '../a2a/server/rest-v1.js';
import { isLiteError, LiteError } from '../errors.js';
import type { HttpResponse, RequestHead } from '../net/http-types.js';
import { whenDone } from './forwarded.js';
import type { CallGate } from './hub.js';

/** JSON-RPC codes of a relayed answer, as the audit trail names them. */
const RPC_OUTCOMES: Readonly<Record<number, string>> = {
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_TERMINAL',
  [-32003]: 'PUSH_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32006]: 'PEER_ERROR',
  [-32008]: 'EXTENSION_SUPPORT_REQUIRED',
  [-32009]: 'VERSION_NOT_SUPPORTED',
  [-32600]: 'INVALID_REQUEST',
  [-32601]: 'METHOD_NOT_FOUND',
  [-32602]: 'INVALID_PARAMS',
  [-32603]: 'INTERNAL',
  [-32700]: 'INVALID_JSON',
};

export class HubGuard {
  readonly limits: CallerLimits;
  /** Count streams: a cap on them, or tokens that can be withdrawn. */
  readonly tracking: boolean;
  /** Whether a relayed call has anything to pass: a cap on streams or sends, or an audit trail. */
  private readonly gating: boolean;
  private readonly sending = new Map<string, number>();

  constructor(
    options: LimitOptions | undefined,
    readonly audit: AuditSink | undefined,
    withdrawable: boolean,
  ) {
    this.limits = new CallerLimits(options, audit);
    this.tracking = withdrawable || options?.maxStreams !== undefined;
    this.gating = audit !== undefined || options?.maxStreams !== undefined || options?.maxTasks !== undefined;
  }

  /** The rate limits at the door; an agent posting its answers down its relay session is not counted. */
  admission(): Admission {
    const door = admission(this.limits, this.audit, bindingOf);
    return {
      admit: (head, principal) => (head.path.startsWith('/hub/v1/connect/') ? undefined : door.admit(head, principal)),
      refused: (head, locked) => door.refused(head, locked),
    };
  }

  /** `response`'s stream counted as `principal`'s, when streams are counted. */
  track(principal: string, response: HttpResponse): HttpResponse {
    return this.tracking ? this.limits.streams.track(principal, response) : response;
  }

  /** The gate of one relayed call of `principal` to agent `agent`: the caps, then the audit of its answer; none when there is neither. */
  gate(principal: string, address: string | undefined, agent: string): CallGate | undefined {
    if (!this.gating) return undefined;
    return (call) => {
      try {
        if (isStreamingMethod(call.method)) this.limits.checkStreams(principal, address);
        if (auditedAction(call.method) === 'send') this.checkSends(principal, address, agent);
      } catch (error) {
        return refusal(call, error as LiteError);
      }
      const action = auditedAction(call.method);
      const counted = action === 'send' && this.limits.options.maxTasks !== undefined;
      if (counted) this.sending.set(principal, (this.sending.get(principal) ?? 0) + 1);
      if (action === undefined && !counted) return undefined;
      return (response) => {
        if (action !== undefined) this.tellCall(action, principal, address, agent, call, response);
        return counted ? whenDone(response, () => this.sent(principal)) : response;
      };
    };
  }

  /** Runs `run` (a registration or a removal) and audits its outcome. */
  async audited(action: AuditAction, principal: string, address: string | undefined, agent: string | undefined, run: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const who = { principal, ...(address === undefined ? {} : { address }), ...(agent === undefined ? {} : { agent }) };
    try {
      const response = await run();
      tell(this.audit, { action, ...who, ...(agent === undefined && 'body' in response ? agentOf(response.body) : {}), outcome: response.status < 400 ? 'ok' : statusOf(response) });
      return response;
    } catch (error) {
      tell(this.audit, { action, ...who, outcome: outcomeOf(error) });
      throw error;
    }
  }

  private checkSends(principal: string, address: string | undefined, agent: string): void {
    const max = this.limits.options.maxTasks;
    if (max === undefined || (this.sending.get(principal) ?? 0) < max) return;
    this.limits.hit('tasks', principal, address, { agent });
    throw new LiteError('RATE_LIMITED', `this caller has ${max} send${max === 1 ? '' : 's'} in flight through the hub, the most it may; wait for one to be answered`, { retryAfter: CAP_RETRY_SECONDS });
  }

  private sent(principal: string): void {
    const left = (this.sending.get(principal) ?? 1) - 1;
    if (left <= 0) this.sending.delete(principal);
    else this.sending.set(principal, left);
  }

  private tellCall(action: AuditAction, principal: string, address: string | undefined, agent: string, call: RpcCall | RestRoute, response: HttpResponse): void {
    if (this.audit === undefined) return;
    const task = taskIdOf(call.params) ?? (action === 'send' && 'body' in response ? taskOfAnswer(response.body) : undefined);
    tell(this.audit, { action, principal, ...(address === undefined ? {} : { address }), agent, ...(task === undefined ? {} : { task }), outcome: outcomeOfAnswer(call, response) });
  }
}

/** A JSON-RPC error for a JSON-RPC path (a POST to an agent's endpoint), else a google.rpc status. */
function bindingOf(head: RequestHead): 'jsonrpc' | 'rest' {
  const rest = /^\/agents\/[^/]+(\/.*)?$/.exec(head.path);
  if (rest === null || head.method !== 'POST') return 'rest';
  return /^\/(message:|tasks|v1\/|extendedAgentCard|\.well-known)/.test(rest[1] ?? '') ? 'rest' : 'jsonrpc';
}

/** A cap's refusal in the call's own binding, with HTTP 429 and Retry-After. */
function refusal(call: RpcCall | RestRoute, error: LiteError): HttpResponse {
  const headers = { 'retry-after': String(CAP_RETRY_SECONDS) };
  if (!isLiteError(error)) throw error;
  if (call.binding === 'rest') {
    const answer = restError(error);
    return { ...answer, headers: { ...answer.headers, ...headers } };
  }
  return json(429, { jsonrpc: '2.0', id: call.id, error: failure(call.version, error) }, headers);
}

/** `ok`, or what the agent's (or the hub's) answer says went wrong. */
function outcomeOfAnswer(call: RpcCall | RestRoute, response: HttpResponse): string {
  if (response.status >= 400) return statusOf(response);
  if (call.binding !== 'jsonrpc' || !('body' in response) || !response.body.includes('"error"')) return 'ok';
  try {
    const code = (JSON.parse(response.body) as { error?: { code?: unknown } }).error?.code;
    if (typeof code !== 'number') return 'ok';
    return RPC_OUTCOMES[code] ?? `JSONRPC_${code}`;
  } catch {
    return 'ok';
  }
}

/** The google.rpc status of an error answer, else its HTTP status. */
function statusOf(response: HttpResponse): string {
  if ('body' in response) {
    try {
      const status = (JSON.parse(response.body) as { error?: { status?: unknown } }).error?.status;
      if (typeof status === 'string' && /^[A-Z_]{1,40}$/.test(status)) return status;
    } catch {
      // Not a status body: the HTTP status says enough.
    }
  }
  return `HTTP_${response.status}`;
}

/** The id of the task a send's answer carries (1.0 `{task}` or 0.3's task itself). */
function taskOfAnswer(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { result?: { task?: { id?: unknown }; id?: unknown; kind?: unknown }; task?: { id?: unknown } };
    const result = parsed.result;
    const id = parsed.task?.id ?? result?.task?.id ?? (result?.kind === 'task' ? result.id : undefined);
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The agent a registration answer names. */
function agentOf(body: string): { agent?: string } {
  try {
    const id = (JSON.parse(body) as { agent?: { id?: unknown } }).agent?.id;
    return typeof id === 'string' ? { agent: id } : {};
  } catch {
    return {};
  }
}
