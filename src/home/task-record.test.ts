import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { parse } from '../protocol/parse.js';
import { applyToRecord, type TaskRecord } from './task-record.js';

const at = '2026-11-21T08:00:00.000Z';
const msg = (text: string) => parse(text);

/** A task we sent to mexico, moved through the given status lines. */
function makeTask(...statuses: string[]): TaskRecord {
  let record = applyToRecord(undefined, msg('[A2A:task id=email-001 skill=email]\n发邮件'), { direction: 'out', peer: 'mexico', at }).record;
  for (const state of statuses) {
    record = applyToRecord(record, msg(`[A2A:status task=email-001 state=${state}]`), { direction: 'in', peer: 'mexico', at }).record;
  }
  return record;
}

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as LiteError).code;
  }
};

describe('applyMessage', () => {
  it('creates a task as submitted, with our role taken from the direction', () => {
    const sent = makeTask();
    expect(sent).toMatchObject({ id: 'email-001', peer: 'mexico', role: 'requester', skill: 'email', state: 'submitted' });
    const received = applyToRecord(undefined, msg('[A2A:task id=t-1]'), { direction: 'in', peer: 'jiajia', at }).record;
    expect(received.role).toBe('worker');
  });

  it('follows the protocol example to completed and keeps the result', () => {
    const accepted = makeTask('accepted');
    const done = applyToRecord(accepted, msg('[A2A:result task=email-001 state=completed]\n已发送\n[附件: receipt.txt]'), {
      direction: 'in',
      peer: 'mexico',
      at,
    });
    expect(done.change).toBe('updated');
    expect(done.from).toBe('accepted');
    expect(done.record.state).toBe('completed');
    expect(done.record.result).toEqual({ text: '已发送', attachments: ['receipt.txt'] });
    expect(done.record.history.map((e) => `${e.direction}:${e.type}:${e.state}`)).toEqual([
      'out:task:submitted',
      'in:status:accepted',
      'in:result:completed',
    ]);
  });

  it('keeps progress, eta and reason', () => {
    const record = applyToRecord(makeTask('accepted'), msg('[A2A:status task=email-001 state=working progress=40% eta=5m]'), {
      direction: 'in',
      peer: 'mexico',
      at,
    }).record;
    expect(record).toMatchObject({ state: 'working', progress: 40, eta: '5m' });
  });

  it.each([
    [['completed'], 'working', 'TASK_TERMINAL'],
    [['completed'], 'failed', 'TASK_TERMINAL'],
    [['working'], 'accepted', 'ILLEGAL_TRANSITION'],
    [['working'], 'rejected', 'ILLEGAL_TRANSITION'],
  ])('after %j refuses %s with %s', (states, next, code) => {
    const record = makeTask(...states);
    expect(codeOf(() => applyToRecord(record, msg(`[A2A:status task=email-001 state=${next}]`), { direction: 'in', peer: 'mexico', at }))).toBe(code);
  });

  it('explains an illegal transition with the states that are allowed', () => {
    expect(() => applyToRecord(makeTask('working'), msg('[A2A:status task=email-001 state=accepted]'), { direction: 'in', peer: 'mexico', at })).toThrow(
      'task "email-001" cannot go from working to accepted: it can move to input-required, auth-required, completed, failed, cancelled',
    );
  });

  it('treats the same message recorded twice as a duplicate', () => {
    const record = makeTask('completed');
    const again = applyToRecord(record, msg('[A2A:status task=email-001 state=completed]'), { direction: 'in', peer: 'mexico', at });
    expect(again.change).toBe('duplicate');
    expect(again.record).toBe(record);
  });

  it('refuses a status sent by the requester', () => {
    expect(codeOf(() => applyToRecord(makeTask(), msg('[A2A:status task=email-001 state=working]'), { direction: 'out', peer: 'mexico', at }))).toBe(
      'ROLE_MISMATCH',
    );
  });

  it('records a cancel request without ending the task, and refuses one after the end', () => {
    const record = applyToRecord(makeTask('working'), msg('[A2A:cancel task=email-001 reason=changed]'), { direction: 'out', peer: 'mexico', at }).record;
    expect(record).toMatchObject({ state: 'working', cancelRequested: true, reason: 'changed' });
    const ended = applyToRecord(record, msg('[A2A:status task=email-001 state=cancelled]'), { direction: 'in', peer: 'mexico', at }).record;
    expect(ended.state).toBe('cancelled');
    expect(codeOf(() => applyToRecord(ended, msg('[A2A:cancel task=email-001]'), { direction: 'out', peer: 'mexico', at }))).toBe('TASK_TERMINAL');
  });

  it('accepts an ack from either side, even after the end', () => {
    const record = applyToRecord(makeTask('completed'), msg('[A2A:ack task=email-001]\n谢谢'), { direction: 'out', peer: 'mexico', at }).record;
    expect(record.history.at(-1)).toMatchObject({ type: 'ack', direction: 'out', state: 'completed' });
  });

  it('takes a follow-up from the requester while input is required', () => {
    const record = applyToRecord(makeTask('input-required'), msg('[A2A:task id=email-001]\n收件人是 a@b.c'), { direction: 'out', peer: 'mexico', at });
    expect(record.change).toBe('updated');
    expect(record.record.history).toHaveLength(3);
  });

  it('needs the task message before any update', () => {
    expect(codeOf(() => applyToRecord(undefined, msg('[A2A:status task=x state=working]'), { direction: 'in', peer: 'mexico', at }))).toBe('TASK_NOT_FOUND');
  });
});

describe('credentials in messages', () => {
  const key = ['sk-', 'proj-', 'Zx81Qw0PlmNbV7cXe2RtYu9Io3As'].join('');

  it('never reach the ledger', () => {
    const record = applyToRecord(undefined, msg(`[A2A:task id=t-1 note=${key}]\nuse ${key} to log in`), { direction: 'in', peer: 'x', at }).record;
    const stored = JSON.stringify(record);
    expect(stored).not.toContain(key);
    expect(record.history[0]?.body).toBe('use [redacted: API key (sk-…)] to log in');
    expect(record.history[0]?.params.note).toBe('[redacted: API key (sk-…)]');
  });
});

describe('repeats', () => {
  it('takes a state seen before as new when something came between (working → input-required → working)', () => {
    const resumed = applyToRecord(makeTask('working', 'input-required'), msg('[A2A:status task=email-001 state=working]'), {
      direction: 'in',
      peer: 'mexico',
      at,
    });
    expect(resumed.change).toBe('updated');
    expect(resumed.record.state).toBe('working');
  });

  it('refuses an old status re-sent after the task ended, instead of calling it a repeat', () => {
    expect(codeOf(() => applyToRecord(makeTask('working', 'completed'), msg('[A2A:status task=email-001 state=working]'), { direction: 'in', peer: 'mexico', at }))).toBe(
      'TASK_TERMINAL',
    );
  });
});
