import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeConfig, pushStoreContract } from '../../../test/contracts/push-store.js';
import { taskLogContract } from '../../../test/contracts/task-log.js';
import { makeTask, taskStoreContract } from '../../../test/contracts/task-store.js';
import { withStores } from '../../../test/contracts/with-stores.js';
import { tempHome } from '../../../test/fixtures/home.js';
import type { Task } from '../../model/task.js';
import { loadDriver } from './driver.js';
import { MIGRATIONS } from './schema.js';
import { listingSql } from './listing.js';
import { openSqliteTaskStore } from './task-store.js';
import { MemoryTaskStore, type TaskQuery } from '../task-store.js';

/** The file opened with the store's own driver, as a user would poke at it. */
const openFile = async (path: string) => (await loadDriver()).open(path);

taskStoreContract('SqliteTaskStore', () => openSqliteTaskStore(join(tempHome('sqlite'), 'tasks.db')));
pushStoreContract('SqliteTaskStore', () => openSqliteTaskStore(join(tempHome('sqlite'), 'tasks.db')));
taskLogContract('SqliteTaskStore', () => openSqliteTaskStore(join(tempHome('sqlite'), 'tasks.db')));

const at = (time: string) => () => new Date(`2026-11-22T${time}Z`);

const stores = withStores((path: string, now?: () => Date) => openSqliteTaskStore(path, now ? { now } : {}));

describe('SqliteTaskStore on disk', () => {
  it('keeps history, artifacts and metadata across close and reopen', async () => {
    const path = join(tempHome('sqlite'), 'nested', 'tasks.db');
    const task = makeTask({
      state: 'completed',
      history: [
        { messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: '帮我调研' }], contextId: 'c-1' },
        { messageId: 'm-2', role: 'agent', parts: [{ kind: 'data', data: { rows: [1, 2, 3] } }], taskId: 't-1' },
      ],
      artifacts: [
        {
          artifactId: 'report',
          name: 'report.pdf',
          parts: [{ kind: 'file', name: 'r.pdf', mediaType: 'application/pdf', bytes: Buffer.from('%PDF-1.7\n\0\xff').toString('base64') }],
          metadata: { pages: 1 },
        },
      ],
      metadata: { requester: 'alice', tags: ['x', 'y'], nested: { ok: true, none: null } },
    });
    const writer = await stores.open(path);
    await writer.save(task);
    await stores.close(writer);

    const reopened = await stores.open(path);
    expect(await reopened.get('t-1')).toEqual(task);
    expect((await reopened.list()).tasks).toEqual([task]);
  });

  it('fails what was running before a restart, for good, and leaves ended tasks alone', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const before = await stores.open(path, at('08:00:00.000'));
    for (const state of ['working', 'submitted', 'input-required', 'completed', 'cancelled'] as const) {
      await before.save(makeTask({ id: state, state }));
    }
    await stores.close(before);

    const after = await stores.open(path, at('09:30:00.000'));
    const recovered = await after.recoverInterrupted('the agent restarted');
    expect(recovered.map((t) => [t.id, t.status.state, t.status.timestamp])).toEqual([
      ['input-required', 'failed', '2026-11-22T09:30:00.000Z'],
      ['submitted', 'failed', '2026-11-22T09:30:00.000Z'],
      ['working', 'failed', '2026-11-22T09:30:00.000Z'],
    ]);
    await stores.close(after);

    const third = await stores.open(path);
    const working = await third.get('working');
    expect(working?.status.message?.parts).toEqual([{ kind: 'text', text: 'the agent restarted' }]);
    expect(working?.history.at(-1)).toEqual(working?.status.message);
    expect((await third.list({ state: 'failed' })).tasks.map((t) => t.id)).toEqual(['input-required', 'submitted', 'working']);
    expect(await third.get('completed')).toEqual(makeTask({ id: 'completed', state: 'completed' }));
    expect(await third.get('cancelled')).toEqual(makeTask({ id: 'cancelled', state: 'cancelled' }));
  });

  it('leaves a sound WAL database at the current schema version', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const store = await stores.open(path);
    for (let i = 0; i < 200; i += 1) {
      await store.save(makeTask({ id: `t-${i}`, contextId: `c-${i % 7}`, at: `2026-11-21T08:${String(i % 60).padStart(2, '0')}:00.000Z` }));
    }
    await store.recoverInterrupted('restart');
    await stores.close(store);

    const db = await openFile(path);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(200);
    } finally {
      db.close();
    }
  });

  it('lets a second connection read what the first wrote', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const serving = await stores.open(path);
    const reading = await stores.open(path);
    await serving.save(makeTask());
    expect(await reading.get('t-1')).toEqual(makeTask());
  });

  it('round-trips hostile values exactly', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    let deep: Record<string, unknown> = { bottom: 'end\u0000here' };
    for (let depth = 0; depth < 50; depth += 1) deep = { [`level-${depth}`]: deep, list: [depth, -0.5, 1e300, null] };
    const weird = 'NUL\u0000 emoji 😀 rtl עברית combining é zero-width\u200b lone \ud800 bom \ufeff quote "\' back\\slash';
    const task = makeTask({
      id: `id ${weird}`,
      contextId: `ctx ${weird}`,
      history: [{ messageId: weird, role: 'user', parts: [{ kind: 'text', text: 'x'.repeat(1024 * 1024) + weird }] }],
      artifacts: [{ artifactId: 'a\u0000b', parts: [{ kind: 'data', data: [weird, { [weird]: weird }] }] }],
      metadata: { deep, [weird]: weird },
    });
    const writer = await stores.open(path);
    await writer.save(task);
    await stores.close(writer);

    const store = await stores.open(path);
    expect(await store.get(task.id)).toEqual(task);
    expect((await store.list({ contextId: task.contextId })).tasks).toEqual([task]);
    expect(await store.get('id NUL')).toBeUndefined();
  });

  it('keeps ids apart that only differ in a lone surrogate or after a NUL', async () => {
    const store = await stores.open(join(tempHome('sqlite'), 'tasks.db'));
    const ids = ['\ud800', '\ud801', '\ufffd', 'a\u0000b', 'a\u0000c', 'a'];
    for (const id of ids) await store.save(makeTask({ id }));
    for (const id of ids) expect((await store.get(id))?.id).toBe(id);
    expect((await store.list()).totalSize).toBe(ids.length);
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
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { maxLength: 25 }), query, async (specs, q) => {
        const memory = new MemoryTaskStore();
        const sqlite = await openSqliteTaskStore(join(tempHome('sqlite'), 'tasks.db'));
        try {
          for (const { owner: by, ...s } of specs) {
            const task: Task = makeTask(s);
            await memory.save(task, by);
            await sqlite.save(task, by);
          }
          let pageToken = '';
          for (let pages = 0; pages <= specs.length; pages += 1) {
            const request: TaskQuery = { ...q, pageToken };
            const [expected, actual] = [await memory.list(request), await sqlite.list(request)];
            expect(actual).toEqual(expected);
            pageToken = actual.nextPageToken;
            if (pageToken === '') break;
          }
        } finally {
          await sqlite.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps push configs and the outbox across close and reopen', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const before = await stores.open(path);
    const config = makeConfig({ token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'secret' }, version: '0.3' });
    await before.savePushConfig(config);
    const [first, second] = await before.addDeliveries([
      { taskId: 't-1', configId: 'cfg-1', body: '{"n":1}' },
      { taskId: 't-1', configId: 'cfg-1', body: '{"n":2}' },
    ]);
    await before.recordAttempt(first?.seq as number, 3);
    await stores.close(before);

    const after = await stores.open(path);
    expect(await after.listPushConfigs('t-1')).toEqual([config]);
    expect(await after.pendingDeliveries()).toEqual([
      { ...first, attempts: 3 },
      { ...second, attempts: 0 },
    ]);
  });

  it('upgrades a version 1 file (tasks only) and keeps its tasks', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const db = await openFile(path);
    db.exec(`CREATE TABLE tasks (id BLOB PRIMARY KEY, context_id BLOB NOT NULL, state TEXT NOT NULL,
      status_timestamp BLOB NOT NULL, created_at TEXT NOT NULL, json TEXT NOT NULL)`);
    const key = (text: string) => Buffer.from(text, 'utf16le').swap16();
    const task = makeTask({ state: 'completed' });
    db.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)').run(key(task.id), key(task.contextId), 'completed', key(task.status.timestamp), task.status.timestamp, JSON.stringify(task));
    db.pragma('user_version = 1');
    db.close();

    const store = await stores.open(path);
    expect(await store.get('t-1')).toEqual(task);
    await store.savePushConfig(makeConfig());
    expect(await store.listPushConfigs('t-1')).toHaveLength(1);
  });
});

describe('SqliteTaskStore owners', () => {
  it('keeps owners across close and reopen, and never in the task JSON', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const writer = await stores.open(path);
    await writer.save(makeTask({ id: 'a' }), 'ALICE_TOKEN');
    await writer.save(makeTask({ id: 'b' }), 'BOB_TOKEN');
    await stores.close(writer);

    const reopened = await stores.open(path);
    expect(await reopened.get('a', 'ALICE_TOKEN')).toEqual(makeTask({ id: 'a' }));
    expect(await reopened.get('a', 'BOB_TOKEN')).toBeUndefined();
    expect((await reopened.list({ owner: 'BOB_TOKEN' })).tasks.map((t) => t.id)).toEqual(['b']);
    await stores.close(reopened);

    const db = await openFile(path);
    try {
      const json = db.prepare('SELECT json FROM tasks').pluck().all() as string[];
      for (const text of json) expect(text).not.toContain('_TOKEN');
    } finally {
      db.close();
    }
  });

  it('lists by owner with the owner index', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    await stores.close(await stores.open(path));
    const db = await openFile(path);
    try {
      const plan = db
        .prepare('EXPLAIN QUERY PLAN SELECT json FROM tasks WHERE owner = ? ORDER BY status_timestamp DESC, id ASC LIMIT 10')
        .all(Buffer.from('x')) as { detail: string }[];
      expect(plan.map((row) => row.detail).join('\n')).toContain('tasks_by_owner');
    } finally {
      db.close();
    }
  });

  it('lists several states by merging walks of tasks_by_state, without sorting', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    await stores.close(await stores.open(path));
    const db = await openFile(path);
    try {
      const x = Buffer.from('x');
      const params = { state0: 'submitted', state1: 'accepted', limit: 51, afterTimestamp: x, afterId: x, contextId: x };
      for (const query of [{}, { pageToken: 'next' }, { contextId: 'c', pageToken: 'next' }]) {
        const { rows } = listingSql(query, 2);
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${rows}`).all(params) as { detail: string }[]).map((row) => row.detail).join('\n');
        expect(plan, JSON.stringify(query)).toMatch(/^MERGE \(UNION ALL\)/);
        expect(plan.match(/INDEX tasks_by_state \(state=\?/g), JSON.stringify(query)).toHaveLength(2);
        expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE|SCAN/);
      }
    } finally {
      db.close();
    }
  });

  it('keeps tasks without an owner out of the owner index', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const store = await stores.open(path);
    for (let i = 0; i < 5; i += 1) await store.save(makeTask({ id: `anon-${i}` }));
    await store.save(makeTask({ id: 'mine' }), 'ALICE_TOKEN');
    await stores.close(store);
    const db = await openFile(path);
    try {
      expect(db.prepare("SELECT count(*) FROM tasks INDEXED BY tasks_by_owner WHERE owner IS NOT NULL").pluck().get()).toBe(1);
      const stat = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'tasks_by_owner'").pluck().get() as string;
      expect(stat).toContain('WHERE owner IS NOT NULL');
    } finally {
      db.close();
    }
  });

  it('upgrades a version 2 file: its tasks have no owner, so only reads that name none see them', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const db = await openFile(path);
    db.exec(`CREATE TABLE tasks (id BLOB PRIMARY KEY, context_id BLOB NOT NULL, state TEXT NOT NULL,
      status_timestamp BLOB NOT NULL, created_at TEXT NOT NULL, json TEXT NOT NULL);
      CREATE TABLE push_configs (task_id BLOB NOT NULL, id BLOB NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_id, id));
      CREATE TABLE push_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id BLOB NOT NULL, config_id BLOB NOT NULL,
        body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0);`);
    const key = (text: string) => Buffer.from(text, 'utf16le').swap16();
    const task = makeTask({ state: 'completed' });
    db.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)').run(key(task.id), key(task.contextId), 'completed', key(task.status.timestamp), task.status.timestamp, JSON.stringify(task));
    db.pragma('user_version = 2');
    db.close();

    const store = await stores.open(path);
    expect(await store.get('t-1')).toEqual(task);
    expect(await store.get('t-1', 'ALICE_TOKEN')).toBeUndefined();
    expect((await store.list({ owner: 'ALICE_TOKEN' })).totalSize).toBe(0);
    await store.save(makeTask({ id: 'new' }), 'ALICE_TOKEN');
    expect((await store.list({ owner: 'ALICE_TOKEN' })).tasks.map((t) => t.id)).toEqual(['new']);
  });
});

describe('openSqliteTaskStore refuses', () => {
  it('a folder, by name', async () => {
    const home = tempHome('sqlite');
    await expect(openSqliteTaskStore(home)).rejects.toMatchObject({
      code: 'IO_ERROR',
      message: `the task store "${home}" is a folder; give the path of a file`,
    });
  });

  it('a file that is not a database', async () => {
    const path = join(tempHome('sqlite'), 'notes.txt');
    writeFileSync(path, 'not a database, just words. '.repeat(200));
    await expect(openSqliteTaskStore(path)).rejects.toMatchObject({
      code: 'LEDGER_CORRUPT',
      message: expect.stringContaining('file is not a database'),
      details: { path, sqlite: 'SQLITE_NOTADB' },
    });
  });

  it('a store written by a newer schema', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const db = await openFile(path);
    db.pragma('user_version = 99');
    db.close();
    await expect(openSqliteTaskStore(path)).rejects.toMatchObject({
      code: 'LEDGER_CORRUPT',
      message: expect.stringContaining(`schema version 99, newer than this a2a-lite reads (${MIGRATIONS.length})`),
    });
  });

  it('to start without the native module: on node:sqlite where Node has it, else saying what to do instead', async () => {
    // What an install with --ignore-scripts leaves: the JavaScript is there, the addon is not.
    vi.doMock('better-sqlite3', () => ({
      default: function Database() {
        throw new Error('Could not locate the bindings file.');
      },
    }));
    const builtIn = 'node:sqlite';
    const hasNodeSqlite = await import(builtIn).then(
      () => true,
      () => false,
    );
    try {
      const opening = openSqliteTaskStore(join(tempHome('sqlite'), 'tasks.db'));
      if (hasNodeSqlite) {
        const store = await opening;
        expect(store.driver).toBe('node:sqlite');
        await store.save(makeTask({ id: 'kept' }));
        expect((await store.get('kept'))?.id).toBe('kept');
        await store.close();
      } else {
        await expect(opening).rejects.toMatchObject({
          code: 'IO_ERROR',
          message: expect.stringMatching(/node:sqlite.*better-sqlite3.*without --ignore-scripts.*--store memory/),
          details: { reasons: [expect.stringContaining('Could not locate the bindings file.'), expect.stringContaining('node:sqlite')] },
        });
      }
    } finally {
      vi.doUnmock('better-sqlite3');
    }
  });

  it('to use a driver A2A_LITE_SQLITE does not name', async () => {
    await expect(loadDriver({ A2A_LITE_SQLITE: 'sqlite4' })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('better-sqlite3 or node:sqlite') });
  });
});

describe('the SQLite file', () => {
  it('is readable by its owner only, with its WAL', async () => {
    const { statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const path = join(tempHome('sqlite-mode'), 'a2a-lite.db');
    const store = await openSqliteTaskStore(path);
    await store.save(makeTask());
    for (const file of [path, `${path}-wal`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    await store.close();
  });
});
