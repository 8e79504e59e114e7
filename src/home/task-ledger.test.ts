import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/fixtures/home.js';
import { LiteError } from '../errors.js';
import { parse } from '../protocol/parse.js';
import { FileTaskLedger } from './task-ledger.js';

const ledger = () => new FileTaskLedger(join(tempHome('ledger'), 'tasks'));

describe('FileTaskLedger', () => {
  it('records a task and its updates, and reads them back', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=email-001 skill=email]\n发邮件'), { direction: 'out', peer: 'mexico' });
    tasks.record(parse('[A2A:status task=email-001 state=accepted]'));
    tasks.record(parse('[A2A:result task=email-001 state=completed]\n好了'));
    const record = tasks.get('email-001');
    expect(record).toMatchObject({ id: 'email-001', peer: 'mexico', role: 'requester', state: 'completed', result: { text: '好了' } });
    expect(record.history.map((e) => e.direction)).toEqual(['out', 'in', 'in']);
  });

  it('keeps every version as its own file', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=t-1]'), { direction: 'in', peer: 'jiajia' });
    tasks.record(parse('[A2A:status task=t-1 state=working]'));
    expect(readdirSync(join(tasks.dir, 'jiajia', 't-1'))).toEqual(['v00000001.json', 'v00000002.json']);
  });

  it('keeps what another writer added between two of its own writes (two processes on one ledger)', () => {
    const dir = join(tempHome('ledger'), 'tasks');
    const mine = new FileTaskLedger(dir);
    const theirs = new FileTaskLedger(dir);
    mine.record(parse('[A2A:task id=t-1]'), { direction: 'out', peer: 'mexico' });
    theirs.record(parse('[A2A:status task=t-1 state=working progress=50%]'), { direction: 'in', peer: 'mexico' });
    // This one remembers version 1 as the newest: its next write must not overwrite or lose version 2.
    mine.record(parse('[A2A:result task=t-1 state=completed]\ndone'), { direction: 'in', peer: 'mexico' });
    expect(readdirSync(join(dir, 'mexico', 't-1'))).toEqual(['v00000001.json', 'v00000002.json', 'v00000003.json']);
    const record = new FileTaskLedger(dir).get('t-1');
    expect(record.history.map((e) => `${e.type}:${e.state}`)).toEqual(['task:submitted', 'status:working', 'result:completed']);
    expect(record.state).toBe('completed');
    // And a refusal is made against the newest state, whoever wrote it.
    expect(() => theirs.record(parse('[A2A:status task=t-1 state=working]'), { direction: 'in', peer: 'mexico' })).toThrow(LiteError);
  });

  it('refuses an illegal transition and keeps what was stored', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=t-1]'), { direction: 'out', peer: 'mexico' });
    tasks.record(parse('[A2A:result task=t-1 state=completed]'));
    expect(() => tasks.record(parse('[A2A:status task=t-1 state=working]'))).toThrow(LiteError);
    expect(tasks.get('t-1').state).toBe('completed');
    expect(tasks.get('t-1').history).toHaveLength(2);
  });

  it('keeps the same task id from two peers apart', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=email-001]'), { direction: 'in', peer: 'jiajia' });
    tasks.record(parse('[A2A:task id=email-001]'), { direction: 'in', peer: 'bob' });
    expect(() => tasks.get('email-001')).toThrow(/used with .*bob.*jiajia|used with .*jiajia.*bob/);
    expect(tasks.get('email-001', 'bob').peer).toBe('bob');
    expect(tasks.list().map((t) => t.peer).sort()).toEqual(['bob', 'jiajia']);
  });

  it('allocates readable ids that never repeat', () => {
    const tasks = ledger();
    expect(tasks.allocateId('research')).toBe('research-001');
    expect(tasks.allocateId('research')).toBe('research-002');
    tasks.record(parse('[A2A:task id=research-007]'), { direction: 'in', peer: 'jiajia' });
    expect(tasks.allocateId('research')).toBe('research-008');
    expect(tasks.allocateId('邮件')).toBe('邮件-001');
  });

  it('filters the list by state and peer', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=a]'), { direction: 'out', peer: 'mexico' });
    tasks.record(parse('[A2A:task id=b]'), { direction: 'out', peer: 'jiajia' });
    tasks.record(parse('[A2A:status task=b state=working]'));
    expect(tasks.list({ state: 'working' }).map((t) => t.id)).toEqual(['b']);
    expect(tasks.list({ peer: 'mexico' }).map((t) => t.id)).toEqual(['a']);
  });

  it('stores hostile ids inside its own folder', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=x]'), { direction: 'in', peer: '../../escape' });
    expect(readdirSync(tasks.dir)).toEqual(['%2E.%2F..%2Fescape']);
    expect(tasks.list()[0]?.peer).toBe('../../escape');
  });

  it('names a corrupt file instead of guessing', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=t-1]'), { direction: 'in', peer: 'jiajia' });
    writeFileSync(join(tasks.dir, 'jiajia', 't-1', 'v00000002.json'), '{ half');
    expect(() => tasks.get('t-1')).toThrow(/v00000002\.json is not valid JSON/);
  });

  it('asks for the peer of a new task', () => {
    expect(() => ledger().record(parse('[A2A:task id=t-1]'))).toThrow(expect.objectContaining({ code: 'PEER_REQUIRED' }));
  });
});

describe('FileTaskLedger storage', () => {
  it('grows with the messages, not their square', () => {
    const tasks = ledger();
    tasks.record(parse('[A2A:task id=long-1]'), { direction: 'in', peer: 'jiajia' });
    const sizeAfter = (n: number) => {
      for (let i = 0; i < n; i += 1) tasks.record(parse(`[A2A:status task=long-1 state=working progress=${i % 100}]\nstep ${i} ${'x'.repeat(200)}`));
      const folder = join(tasks.dir, 'jiajia', 'long-1');
      return readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
    };
    const first = sizeAfter(100);
    const second = sizeAfter(100) - first;
    expect(second).toBeLessThan(first * 1.2);
    expect(tasks.get('long-1').history).toHaveLength(201);
  });
});
