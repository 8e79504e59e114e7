// What the PostgreSQL task store does beyond the contracts: hostile strings kept exactly (NUL,
// lone surrogates, quotes, megabytes), lists identical to the memory store's, replicas reading
// each other's writes, reopening, and saves grouped into one round trip per batch.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTask } from '../../../test/contracts/task-store.js';
import { withStores } from '../../../test/contracts/with-stores.js';
import { adminQuery, needsPostgres, uniqueName, useTestDatabase } from '../../../test/postgres.js';
import type { Task } from '../../model/task.js';
import { MemoryTaskStore, type TaskQuery } from '../task-store.js';
import { openPostgresTaskStore } from './task-store.js';
import { ENDED_SQL } from './writes.js';

const noPostgres = needsPostgres('the PostgreSQL task store (src/store/postgres)');

describe.skipIf(noPostgres)('PostgresTaskStore', () => {
  const db = useTestDatabase();
  const stores = withStores((schema?: string, now?: () => Date) => openPostgresTaskStore(db.url(), { schema: schema ?? uniqueName('s'), ...(now ? { now } : {}) }));

  it('round-trips hostile values exactly, and keeps long ids, context ids, keys and owners apart', async () => {
    let deep: Record<string, unknown> = { bottom: 'end\u0000here' };
    for (let depth = 0; depth < 50; depth += 1) deep = { [`level-${depth}`]: deep, list: [depth, -0.5, 1e300, null] };
    const weird = 'NUL\u0000 emoji 😀 rtl עברית combining é zero-width\u200b lone \ud800 bom \ufeff quote "\' back\\slash $1 \\x00';
    const long = `${weird}${'ctx'.repeat(50_000)}`;
    const task = makeTask({
      id: `id ${weird}`,
      contextId: long,
      history: [{ messageId: weird, role: 'user', parts: [{ kind: 'text', text: 'x'.repeat(1024 * 1024) + weird }] }],
      artifacts: [{ artifactId: 'a\u0000b', parts: [{ kind: 'data', data: [weird, { [weird]: weird }] }] }],
      metadata: { deep, [weird]: weird },
    });
    const writer = await stores.open();
    const reader = await stores.open(writer.schema);
    await writer.save(task, long, { idempotency: { key: long, fingerprint: 'f' }, events: [{ kind: 'status', taskId: task.id, contextId: long, status: task.status, seq: 1 }] });
    await writer.save(makeTask({ id: 'twin', contextId: `${long}!` }), `${long}!`, { idempotency: { key: `${long}!`, fingerprint: 'g' } });

    expect(await reader.get(task.id)).toEqual(task);
    expect(await reader.get(task.id, long)).toEqual(task);
    expect(await reader.get(task.id, `${long}!`)).toBeUndefined();
    expect((await reader.list({ contextId: long })).tasks).toEqual([task]);
    expect((await reader.list({ owner: `${long}!` })).tasks.map((t) => t.id)).toEqual(['twin']);
    expect(await reader.findIdempotent(long, long)).toMatchObject({ taskId: task.id, fingerprint: 'f' });
    expect(await reader.findIdempotent(`${long}!`, `${long}!`)).toMatchObject({ taskId: 'twin', fingerprint: 'g' });
    expect((await reader.events(task.id, 0)).events[0]?.contextId).toBe(long);
    expect(await reader.get('id NUL')).toBeUndefined();
  });

  it('keeps ids apart that only differ in a lone surrogate or after a NUL', async () => {
    const store = await stores.open();
    const ids = ['\ud800', '\ud801', '\ufffd', 'a\u0000b', 'a\u0000c', 'a'];
    for (const id of ids) await store.save(makeTask({ id }));
    for (const id of ids) expect((await store.get(id))?.id).toBe(id);
    expect((await store.list()).totalSize).toBe(ids.length);
  });

  it('refuses a task id longer than its indexes take, failing that save alone and not the others of its batch', async () => {
    const store = await stores.open();
    const saves = [store.save(makeTask({ id: 'x'.repeat(513) })), store.save(makeTask({ id: 'fine' }))];
    await expect(saves[0]).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', message: 'a task id of 513 characters is longer than the PostgreSQL store keeps (512)' });
    await saves[1];
    expect((await store.list()).tasks.map((t) => t.id)).toEqual(['fine']);
    await store.save(makeTask({ id: 'y'.repeat(512) }));
    expect((await store.get('y'.repeat(512)))?.id).toHaveLength(512);
    await expect(store.savePushConfig({ id: 'c'.repeat(600), taskId: 'fine', url: 'https://x.example/', version: '1.0' })).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE' });
  });

  it('lists exactly as the memory store does: same pages, same tokens', async () => {
    // Characters where UTF-8 byte order and JavaScript's UTF-16 order disagree, and a NUL.
    const char = fc.constantFrom('a', 'b', 'Z', '0', '\u0000', 'é', '\ue000', '\uffff', '😀', '\ud800', '\udc00');
    const text = fc.string({ unit: char, minLength: 1, maxLength: 3 });
    const state = fc.constantFrom('working' as const, 'completed' as const, 'input-required' as const);
    const owner = fc.constantFrom(undefined, 'A', 'B', '\ud800', '\ud801');
    const spec = fc.record({ id: text, contextId: fc.constantFrom('x', 'y', 'x\u0000'), state, at: text, owner });
    const states = fc.oneof(state, fc.array(state, { maxLength: 4 }));
    const query = fc.record(
      { owner, contextId: fc.constantFrom('x', 'y', 'x\u0000'), state: states, updatedAfter: text, pageSize: fc.integer({ min: 1, max: 5 }) },
      { requiredKeys: [] },
    );
    const postgres = await stores.open();
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { maxLength: 25 }), query, async (specs, q) => {
        const memory = new MemoryTaskStore();
        await adminQuery(`TRUNCATE ${postgres.schema}.tasks`, [], db.name());
        for (const { owner: by, ...s } of specs) {
          const task: Task = makeTask(s);
          await memory.save(task, by);
          await postgres.save(task, by);
        }
        let pageToken = '';
        for (let pages = 0; pages <= specs.length; pages += 1) {
          const request: TaskQuery = { ...q, pageToken };
          const [expected, actual] = [await memory.list(request), await postgres.list(request)];
          expect(actual).toEqual(expected);
          pageToken = actual.nextPageToken;
          if (pageToken === '') break;
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps tasks, owners, runners, configs and the outbox across close and reopen', async () => {
    const first = await stores.open();
    const schema = first.schema;
    await first.save(makeTask({ state: 'completed' }), 'ALICE_TOKEN', { runner: 'replica-1' });
    await first.savePushConfig({ id: 'cfg', taskId: 't-1', url: 'https://client.example/hook', version: '1.0', token: 'tok' });
    const [delivery] = await first.addDeliveries([{ taskId: 't-1', configId: 'cfg', body: '{"n":1}' }]);
    await first.saveRetentionRules({ maxTasks: 5 });
    await stores.close(first);

    const again = await stores.open(schema);
    expect(await again.get('t-1', 'ALICE_TOKEN')).toEqual(makeTask({ state: 'completed' }));
    expect(await again.runnerOf('t-1')).toBe('replica-1');
    expect((await again.listPushConfigs('t-1')).map((c) => c.token)).toEqual(['tok']);
    expect(await again.pendingDeliveries()).toEqual([delivery]);
    expect(await again.retentionRules()).toEqual({ maxTasks: 5 });
  });

  it('fails what was running before a restart at the time of its own clock', async () => {
    const at = (time: string) => () => new Date(`2026-11-22T${time}Z`);
    const before = await stores.open(undefined, at('08:00:00.000'));
    for (const state of ['working', 'submitted', 'input-required', 'completed'] as const) await before.save(makeTask({ id: state, state }));
    await stores.close(before);
    const after = await stores.open(before.schema, at('09:30:00.000'));
    expect((await after.recoverInterrupted('the agent restarted')).map((t) => [t.id, t.status.state, t.status.timestamp])).toEqual([
      ['input-required', 'failed', '2026-11-22T09:30:00.000Z'],
      ['submitted', 'failed', '2026-11-22T09:30:00.000Z'],
      ['working', 'failed', '2026-11-22T09:30:00.000Z'],
    ]);
  });

  it('never writes an owner into the task JSON', async () => {
    const store = await stores.open();
    await store.save(makeTask({ id: 'a' }), 'ALICE_TOKEN');
    const { rows } = await adminQuery(`SELECT json FROM ${store.schema}.tasks`, [], db.name());
    for (const row of rows as { json: string }[]) expect(row.json).not.toContain('_TOKEN');
  });

  it('finds the unfinished tasks of a replica through the partial index tasks_running', async () => {
    const store = await stores.open();
    const explain = `BEGIN; SET LOCAL enable_seqscan = off;
      EXPLAIN SELECT t.json FROM ${store.schema}.tasks t WHERE t.state NOT IN ${ENDED_SQL} AND t.runner = 'x' ORDER BY t.id FOR UPDATE OF t; COMMIT`;
    const [, , plan] = (await adminQuery(explain, [], db.name())) as unknown as { rows: { 'QUERY PLAN': string }[] }[];
    expect(plan!.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('Index Scan using tasks_running');
  });

  it('names the claiming replica on a key only until its task is saved, so the index of open claims stays small', async () => {
    const store = await stores.open();
    const claimers = async () => (await adminQuery(`SELECT claimed_by FROM ${store.schema}.idempotency_keys WHERE claimed_by IS NOT NULL`, [], db.name())).rows;
    await store.claimKey('made', 'ALICE', 'f', 't-1', 'alpha');
    await store.claimKey('pending', 'ALICE', 'f', 't-2', 'alpha');
    expect(await claimers()).toEqual([{ claimed_by: 'alpha' }, { claimed_by: 'alpha' }]);
    await store.save(makeTask({ id: 't-1' }), 'ALICE', { runner: 'alpha', idempotency: { key: 'made', fingerprint: 'f' } });
    expect(await claimers()).toEqual([{ claimed_by: 'alpha' }]);
    expect(await store.findIdempotent('made', 'ALICE')).toMatchObject({ taskId: 't-1' });
  });
});
