// Following a subtask that an earlier process of the run sent and was killed while it ran: by its
// task id, never sending it again, recording what comes in the ledger like a send does, and
// cancelling it at the agent when the run is interrupted.

import type { Context } from '@opentelemetry/api';
import { credentialFor, transportFor, type Peer } from '../client/peer.js';
import type { TokenRules } from '../client/token-rules.js';
import { RemoteRecord } from '../client/remote-record.js';
import { followTask } from '../client/remote-task.js';
import type { SendResult } from '../client/send-task.js';
import type { Stores } from '../home/stores.js';
import type { Task } from '../model/task.js';
import type { AddressGuardOptions } from '../net/address-guard.js';

export interface FollowRequest {
  peer: Peer;
  taskId: string;
  env: NodeJS.ProcessEnv;
  tokenEnv?: string;
  tokenRules?: TokenRules | undefined;
  /** Checks the address of every request when it connects. */
  guard?: AddressGuardOptions;
  waitMs: number;
  signal: AbortSignal;
  onTask(task: Task, progress: number | undefined): void;
  /** The trace context the calls' spans are children of (the step's attempt), while tracing is on. */
  trace?: Context;
}

/** Follows task `taskId` at `peer` until it ends (or asks), like `sendTask` after its send. */
export async function followSubtask(stores: Stores, request: FollowRequest): Promise<SendResult> {
  const transport = transportFor(request.peer, credentialFor(request.peer, request.env, request.tokenEnv, request.tokenRules), { ...(request.guard === undefined ? {} : { guard: request.guard }), ...(request.trace === undefined ? {} : { trace: request.trace }) });
  const record = new RemoteRecord(stores, request.peer.id);
  let current: Task | undefined;
  const following = new AbortController();
  const onAbort = (): void => {
    // Cancel first, then stop following, so that the cancel's answer is what is recorded.
    void transport.cancelTask(request.taskId).then(
      (task) => {
        current = task;
        following.abort(request.signal.reason);
      },
      () => following.abort(request.signal.reason),
    );
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const outcome = await followTask(transport, request.taskId, {
      stream: request.peer.access.streaming,
      signal: following.signal,
      deadline: Date.now() + request.waitMs,
      onEvent: (event, task) => {
        if (task === undefined) return;
        current = task;
        const taken = record.take(event, task);
        const progress = Number(taken.message?.params.progress?.replace('%', ''));
        request.onTask(task, Number.isFinite(progress) ? progress : undefined);
      },
    });
    const task = outcome.kind === 'task' ? outcome.task : current;
    return { peer: request.peer, task, state: task === undefined ? undefined : record.stateOf(task), record, files: record.files };
  } catch (error) {
    if (!following.signal.aborted) throw error;
    return { peer: request.peer, task: current, state: current === undefined ? undefined : record.stateOf(current), record, files: record.files, interrupted: { cancelled: current?.status.state === 'cancelled' } };
  } finally {
    request.signal.removeEventListener('abort', onAbort);
  }
}
