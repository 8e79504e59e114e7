import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../net/http-types.js';
import { MemoryHubStore } from './hub-store.js';
import { backendOf, TaskOwners, taskIdsIn } from './task-owners.js';

const BACKEND = 'http://agent.example/a';
const body = (value: unknown): HttpResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
const stream = (chunks: string[]): HttpResponse => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  events: (async function* () {
    yield* chunks;
  })(),
});
const drain = async (response: HttpResponse): Promise<string> => {
  if ('body' in response) return response.body;
  let text = '';
  for await (const chunk of response.events) text += chunk;
  return text;
};
const task = (id: string) => ({ jsonrpc: '2.0', id: 1, result: { task: { id, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } } });

describe("the owners of tasks at an agent at a URL", () => {
  it('gives a task to the caller whose send made it, and to nobody else', async () => {
    const owners = new TaskOwners(new MemoryHubStore());
    await owners.read(BACKEND, 'alice', true, body(task('t1')));
    await expect(owners.check(BACKEND, 't1', 'alice')).resolves.toBeUndefined();
    await expect(owners.check(BACKEND, 't1', 'bob')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
  });

  it('gives nobody a task that was not made through the hub, and no read claims one', async () => {
    const owners = new TaskOwners(new MemoryHubStore());
    await owners.read(BACKEND, 'bob', false, body(task('t9')));
    await expect(owners.check(BACKEND, 't9', 'bob')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
  });

  it("refuses an answer to a send that names another caller's task", async () => {
    const owners = new TaskOwners(new MemoryHubStore());
    await owners.read(BACKEND, 'alice', true, body(task('t1')));
    const answer = await owners.read(BACKEND, 'bob', true, body(task('t1')));
    expect(answer.status).toBe(502);
    expect(await drain(answer)).not.toContain('t1');
  });

  it('reads a streamed answer whose first event is cut at every byte', async () => {
    const event = `data: ${JSON.stringify(task('t2'))}\n\n`;
    for (let cut = 1; cut < event.length; cut += 7) {
      const owners = new TaskOwners(new MemoryHubStore());
      expect(await drain(owners.read(BACKEND, 'alice', true, stream([event.slice(0, cut), event.slice(cut)])) as HttpResponse)).toBe(event);
      await expect(owners.check(BACKEND, 't2', 'alice')).resolves.toBeUndefined();
      await expect(owners.check(BACKEND, 't2', 'bob')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    }
  });

  it("stops a stream at an event naming another caller's task", async () => {
    const owners = new TaskOwners(new MemoryHubStore());
    await owners.read(BACKEND, 'alice', true, body(task('t1')));
    const text = await drain(owners.read(BACKEND, 'bob', true, stream([`data: ${JSON.stringify(task('t3'))}\n\n`, `data: ${JSON.stringify(task('t1'))}\n\n`])) as HttpResponse);
    expect(text).toContain('t3');
    expect(text).not.toContain('"t1"');
  });

  it("lists a caller's own tasks and counts only those", async () => {
    const owners = new TaskOwners(new MemoryHubStore());
    await owners.read(BACKEND, 'alice', true, body(task('a1')));
    await owners.read(BACKEND, 'bob', true, body(task('b1')));
    const list = { jsonrpc: '2.0', id: 1, result: { tasks: [{ id: 'a1' }, { id: 'b1' }, { id: 'x1' }], totalSize: 3 } };
    const shown = JSON.parse(await drain(await owners.filterList(BACKEND, 'alice', body(list)))) as { result: { tasks: { id: string }[]; totalSize: number } };
    expect(shown.result).toEqual({ tasks: [{ id: 'a1' }], totalSize: 1 });
  });

  it('keys owners by the URL, not the id the agent was registered under', () => {
    expect(backendOf('HTTP://Agent.Example:80/a/')).toBe(backendOf('http://agent.example/a'));
  });

  it.each([
    [{ result: { statusUpdate: { taskId: 's1' } } }, ['s1']],
    [{ result: { artifact_update: { task_id: 's2' } } }, ['s2']],
    [{ result: { message: { taskId: 's3' } } }, ['s3']],
    [{ kind: 'status-update', taskId: 's4' }, ['s4']],
    [{ id: 's5', status: { state: 'working' } }, ['s5']],
    [{ result: { kind: 'task', id: 's6' } }, ['s6']],
    [{ error: { code: 1 } }, []],
  ])('finds every task an answer names: %j', (value, ids) => {
    expect(taskIdsIn(value)).toEqual(ids);
  });
});
