import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, LiteError, type ErrorCode } from '../errors.js';
import { detailsOfStatus, GRPC_CODES, grpcCodeName, grpcStatusOf } from './status.js';

describe('grpcStatusOf', () => {
  // A2A 1.0.1, §5.4: the gRPC status of each A2A error.
  it.each([
    ['TASK_NOT_FOUND', 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['TASK_TERMINAL', 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
    ['PUSH_NOT_SUPPORTED', 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['UNSUPPORTED_OPERATION', 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    ['CONTENT_TYPE_NOT_SUPPORTED', 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
    ['PEER_ERROR', 'INTERNAL', undefined],
    ['EXTENDED_CARD_NOT_CONFIGURED', 'FAILED_PRECONDITION', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
    ['EXTENSION_SUPPORT_REQUIRED', 'FAILED_PRECONDITION', 'EXTENSION_SUPPORT_REQUIRED'],
    ['VERSION_NOT_SUPPORTED', 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
  ] as const)('sends %s as %s with the ErrorInfo reason %s', (code, status, reason) => {
    const sent = grpcStatusOf(new LiteError(code as ErrorCode, 'said'));
    expect(grpcCodeName(sent.code)).toBe(status);
    expect(sent.message).toBe('said');
    const details = detailsOfStatus(sent.details);
    expect(details).toEqual(reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }]);
  });

  it('gives every code of the table a gRPC status gRPC has', () => {
    for (const code of Object.keys(ERROR_TABLE) as ErrorCode[]) {
      expect(Object.values(GRPC_CODES), code).toContain(grpcStatusOf(new LiteError(code, 'x')).code);
      expect(grpcStatusOf(new LiteError(code, 'x')).code, code).not.toBe(GRPC_CODES.UNKNOWN);
    }
  });

  it('names the field at fault with a BadRequest after the ErrorInfo', () => {
    const sent = grpcStatusOf(new LiteError('INVALID_PARAMS', 'params.id is required', { field: 'params.id' }));
    expect(grpcCodeName(sent.code)).toBe('INVALID_ARGUMENT');
    expect(detailsOfStatus(sent.details)).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'params.id', description: 'params.id is required' }] },
    ]);
  });

  it('says nothing of an error that is not ours', () => {
    const sent = grpcStatusOf(new TypeError('secret path /etc/x'));
    expect(sent).toMatchObject({ code: GRPC_CODES.INTERNAL, message: 'internal error' });
  });
});

describe('detailsOfStatus', () => {
  it('reads no details from bytes that are not a google.rpc.Status, nor from none', () => {
    expect(detailsOfStatus(undefined)).toEqual([]);
    expect(detailsOfStatus(new Uint8Array([0xff, 0xff, 0xff]))).toEqual([]);
  });
});
