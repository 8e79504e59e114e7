import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../errors.js';
import { peerError } from './peer-errors.js';
import type { RemoteInterface } from '../model/remote-access.js';

const target: RemoteInterface = { url: 'http://127.0.0.1:9/a2a', binding: 'JSONRPC', version: '1.0' };
const info = (reason: string) => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];

describe('peerError', () => {
  const rows: [string, unknown, number | undefined, ErrorCode][] = [
    ['JSON-RPC TaskNotFound', { code: -32001, message: 'no task "x"' }, undefined, 'TASK_NOT_FOUND'],
    ['JSON-RPC TaskNotCancelable', { code: -32002, message: 'already completed' }, undefined, 'TASK_TERMINAL'],
    ['REST TaskNotFound, by reason', { code: 404, status: 'NOT_FOUND', message: 'gone', details: info('TASK_NOT_FOUND') }, 404, 'TASK_NOT_FOUND'],
    ['REST TaskNotCancelable, by reason', { code: 400, status: 'FAILED_PRECONDITION', message: 'ended', details: info('TASK_NOT_CANCELABLE') }, 400, 'TASK_TERMINAL'],
    ['REST 404 about a task, without ErrorInfo', { code: 404, status: 'NOT_FOUND', message: 'task not found' }, 404, 'TASK_NOT_FOUND'],
    ['REST 404 about something else', { code: 404, status: 'NOT_FOUND', message: 'no route' }, 404, 'PEER_ERROR'],
    ['another reason', { code: 400, status: 'FAILED_PRECONDITION', message: 'no', details: info('UNSUPPORTED_OPERATION') }, 400, 'PEER_ERROR'],
    ['another JSON-RPC code', { code: -32004, message: 'unsupported' }, undefined, 'PEER_ERROR'],
    ['not an object', 'boom', 500, 'PEER_ERROR'],
  ];
  it.each(rows)('%s', (_name, error, httpStatus, code) => {
    expect(peerError(error, target, httpStatus).code).toBe(code);
  });

  it('quotes the agent and keeps what it said in details', () => {
    const error = peerError({ code: -32004, message: 'cancel is not supported', details: info('UNSUPPORTED_OPERATION') }, target);
    expect(error.message).toBe('the agent answered with an error: cancel is not supported (-32004)');
    expect(error.details).toEqual({ url: target.url, code: -32004, status: undefined, reason: 'UNSUPPORTED_OPERATION' });
  });
});
