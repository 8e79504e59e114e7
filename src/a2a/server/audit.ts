// The audit trail's events: one for each security event (a failed login, a limit hit, tokens
// reloaded) and each request that changes state (a send, a cancel, a push config set or
// deleted, an agent registered or removed). An event names who, from where, what and how it
// went; never a credential and never a message's text. `serve --audit FILE` and `hub --audit
// FILE` write them as JSON lines (serve/audit-file.ts).

import { isLiteError } from '../../errors.js';

export type AuditAction =
  | 'send'
  | 'cancel'
  | 'push-config-set'
  | 'push-config-delete'
  | 'register'
  | 'remove'
  | 'auth-failure'
  | 'limit-hit'
  | 'token-reload';

export interface AuditEvent {
  /** ISO 8601. */
  time: string;
  action: AuditAction;
  /** Who: the principal of the credential, when the request had a valid one. */
  principal?: string;
  /** The client's address, as the socket gave it. */
  address?: string;
  /** The agent acted on: the served agent, or the hub's agent the request was for. */
  agent?: string;
  task?: string;
  /** `ok`, or the error code (docs/errors.md) or status the request was answered with. */
  outcome: string;
  /** A word more, never secret: which limit was hit, how a token changed. */
  detail?: string;
}

/** Told of every audit event; must not throw and must not block (a buffered write). */
export type AuditSink = (event: AuditEvent) => void;

/** Which audited action a method of either A2A version is; undefined for a read. */
const ACTIONS: Readonly<Record<string, AuditAction>> = {
  SendMessage: 'send',
  SendStreamingMessage: 'send',
  'message/send': 'send',
  'message/stream': 'send',
  CancelTask: 'cancel',
  'tasks/cancel': 'cancel',
  CreateTaskPushNotificationConfig: 'push-config-set',
  'tasks/pushNotificationConfig/set': 'push-config-set',
  DeleteTaskPushNotificationConfig: 'push-config-delete',
  'tasks/pushNotificationConfig/delete': 'push-config-delete',
};

/** The methods whose answer is a stream. */
const STREAMING = new Set(['SendStreamingMessage', 'SubscribeToTask', 'message/stream', 'tasks/resubscribe']);

export function auditedAction(method: string): AuditAction | undefined {
  return Object.hasOwn(ACTIONS, method) ? ACTIONS[method] : undefined;
}

export function isStreamingMethod(method: string): boolean {
  return STREAMING.has(method);
}

/**
 * The task a method's params name: `taskId` (push configs in 1.0 and 0.3's set), else `id`
 * (cancel, 0.3's delete), else the message's `taskId` (a reply).
 */
export function taskIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const record = params as Record<string, unknown>;
  for (const value of [record.taskId, record.task_id, record.id]) if (typeof value === 'string' && value !== '') return value;
  const message = record.message;
  if (typeof message === 'object' && message !== null) {
    const taskId = (message as Record<string, unknown>).taskId ?? (message as Record<string, unknown>).task_id;
    if (typeof taskId === 'string' && taskId !== '') return taskId;
  }
  return undefined;
}

/** The outcome of a request that failed with `error`: its code, or INTERNAL. */
export function outcomeOf(error: unknown): string {
  return isLiteError(error) ? error.code : 'INTERNAL';
}

/** Calls `sink` with `event` stamped with the time; a sink that throws is ignored. */
export function tell(sink: AuditSink | undefined, event: Omit<AuditEvent, 'time'>): void {
  if (sink === undefined) return;
  try {
    sink({ time: new Date().toISOString(), ...event });
  } catch {
    // The trail is a record of what happened; it never changes what happens.
  }
}
