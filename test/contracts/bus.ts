// The Bus contract: the in-process bus and NATS must behave alike, so that tests on the first
// say something of the second. `connect` makes connections to one cluster (one prefix); each
// test closes what it opened.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isNoResponder, subjectToken, type Bus } from '../../src/cluster/bus.js';
import { LiteError } from '../../src/errors.js';

/** Resolves with the next `count` messages `bus` gets on `subject`, once subscribed. */
async function gather(bus: Bus, subject: string, count: number): Promise<{ ready: Promise<() => void>; got: Promise<unknown[]> }> {
  const got: unknown[] = [];
  let done: (messages: unknown[]) => void = () => undefined;
  const all = new Promise<unknown[]>((resolve) => (done = resolve));
  const ready = bus.subscribe(subject, (message) => {
    got.push(message);
    if (got.length === count) done(got);
  });
  await ready;
  return { ready, got: all };
}

export function busContract(name: string, connect: (prefix: string) => Promise<Bus>): void {
  describe(`${name} (Bus contract)`, () => {
    const open: Bus[] = [];
    // A cluster of its own for each test (and each run): nothing published elsewhere reaches it.
    let cluster = '';
    beforeEach(() => {
      cluster = `test.${randomUUID()}`;
    });
    const bus = async (prefix = cluster): Promise<Bus> => {
      const made = await connect(prefix);
      open.push(made);
      return made;
    };
    afterEach(async () => {
      while (open.length > 0) await open.pop()?.close();
    });

    it('brings what one connection publishes to every subscriber of the subject, in order, as copies', async () => {
      const [a, b] = [await bus(), await bus()];
      const onB = await gather(b, 'task.t1', 3);
      const onA = await gather(a, 'task.t1', 3);
      const elsewhere: unknown[] = [];
      await b.subscribe('task.t2', (message) => elsewhere.push(message));
      const sent = { seq: 1, words: '任务' };
      a.publish('task.t1', sent);
      sent.seq = 99;
      a.publish('task.t1', { seq: 2 });
      a.publish('task.t1', { seq: 3 });
      expect(await onB.got).toEqual([{ seq: 1, words: '任务' }, { seq: 2 }, { seq: 3 }]);
      expect(await onA.got).toEqual([{ seq: 1, words: '任务' }, { seq: 2 }, { seq: 3 }]);
      expect(elsewhere).toEqual([]);
    });

    it('stops a subscription that is ended, and keeps clusters with other prefixes apart', async () => {
      const [a, b] = [await bus(), await bus()];
      const other = await bus(`${a.prefix}-other`);
      const heard: unknown[] = [];
      const stop = await b.subscribe('x', (message) => heard.push(message));
      await other.subscribe('x', (message) => heard.push({ other: message }));
      const first = await gather(b, 'x', 1);
      a.publish('x', 1);
      expect(await first.got).toEqual([1]);
      const second = await gather(b, 'x', 1);
      stop();
      a.publish('x', 2);
      expect(await second.got).toEqual([2]);
      expect(heard).toEqual([1]);
    });

    it('answers a request from the responder of its subject, and sends its LiteError back as itself', async () => {
      const [a, b] = [await bus(), await bus()];
      await b.respond('replica.b', (message) => {
        const { op } = message as { op: string };
        if (op === 'fail') throw new LiteError('TASK_TERMINAL', 'task "t" is already completed', { task: 't' });
        if (op === 'bug') throw new Error('oops');
        return { echo: message };
      });
      expect(await a.request('replica.b', { op: 'echo', n: 1 }, 5_000)).toEqual({ echo: { op: 'echo', n: 1 } });
      await expect(a.request('replica.b', { op: 'fail' }, 5_000)).rejects.toMatchObject({ code: 'TASK_TERMINAL', message: 'task "t" is already completed', details: { task: 't' } });
      await expect(a.request('replica.b', { op: 'bug' }, 5_000)).rejects.toMatchObject({ code: 'INTERNAL', message: 'oops' });
    });

    it('tells a request nobody listens for from one nobody answers in time', async () => {
      const [a, b] = [await bus(), await bus()];
      const none = await a.request('replica.gone', {}, 5_000).catch((error: unknown) => error);
      expect(none).toMatchObject({ code: 'CLUSTER_UNAVAILABLE', details: { reason: 'no-responder' } });
      expect(isNoResponder(none)).toBe(true);
      await b.respond('replica.slow', () => new Promise(() => undefined));
      const late = await a.request('replica.slow', {}, 50).catch((error: unknown) => error);
      expect(late).toMatchObject({ code: 'CLUSTER_UNAVAILABLE', details: { reason: 'timeout' } });
      expect(isNoResponder(late)).toBe(false);
    });

    it('after closing, answers no more requests and drops what is published', async () => {
      const [a, b] = [await bus(), await bus()];
      await b.respond('replica.b', () => 'here');
      expect(await a.request('replica.b', null, 5_000)).toBe('here');
      await b.close();
      await expect(a.request('replica.b', null, 5_000)).rejects.toMatchObject({ code: 'CLUSTER_UNAVAILABLE' });
      await a.close();
      expect(() => a.publish('x', 1)).not.toThrow();
      await expect(a.request('replica.b', null, 5_000)).rejects.toMatchObject({ code: 'CLUSTER_UNAVAILABLE', details: { reason: 'closed' } });
    });

    it('carries any task id or replica name as one subject token', async () => {
      const [a, b] = [await bus(), await bus()];
      const odd = ['a.b', 'a b', '*', '>', '任务', '=x', 'x'];
      const tokens = odd.map(subjectToken);
      expect(new Set(tokens).size).toBe(odd.length);
      expect(subjectToken('0190a2b3-c4d5-7e6f-8091-a2b3c4d5e6f7')).toBe('0190a2b3-c4d5-7e6f-8091-a2b3c4d5e6f7');
      const heard = await gather(b, `task.${subjectToken('a.b')}`, 1);
      const wrong: unknown[] = [];
      await b.subscribe(`task.${subjectToken('a b')}`, (message) => wrong.push(message));
      a.publish(`task.${subjectToken('a.b')}`, 'for a.b');
      expect(await heard.got).toEqual(['for a.b']);
      expect(wrong).toEqual([]);
    });
  });
}
