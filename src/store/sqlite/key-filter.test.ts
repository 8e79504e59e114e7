import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../../test/fixtures/home.js';
import { makeTask } from '../../../test/contracts/task-store.js';
import { KeyFilter } from './key-filter.js';
import { openDatabase } from './open.js';
import { key } from './rows.js';
import { openSqliteTaskStore } from './task-store.js';

describe('the idempotency key filter', () => {
  it('is built from every key in the file, past one page, and knows each; most others it rules out', async () => {
    const path = join(tempHome('key-filter'), 'tasks.db');
    const { db } = await openDatabase(path);
    const insert = db.prepare("INSERT INTO idempotency_keys (owner, key, fingerprint, task_id, created_at) VALUES (?, ?, 'f', NULL, '2026-11-23T00:00:00.000Z')");
    db.transaction(() => {
      for (let i = 0; i < 25_000; i += 1) insert.run(key(i % 2 === 0 ? 'A2A_ALICE' : ''), key(`key:job-${i}`));
    })();
    const filter = KeyFilter.of(db);
    db.close();
    for (let i = 0; i < 25_000; i += 1) expect(filter.mightHave(key(i % 2 === 0 ? 'A2A_ALICE' : ''), key(`key:job-${i}`))).toBe(true);
    let maybe = 0;
    for (let i = 0; i < 10_000; i += 1) if (filter.mightHave(key('A2A_ALICE'), key(`key:other-${i}`))) maybe += 1;
    expect(maybe).toBeLessThan(100);
  });

  it('lets a reopened store find the keys saved before', async () => {
    const path = join(tempHome('key-filter'), 'tasks.db');
    const first = await openSqliteTaskStore(path);
    await first.save(makeTask({ id: 'a' }), 'A2A_BOB', { idempotency: { key: 'key:k', fingerprint: 'f' } });
    await first.close();
    const second = await openSqliteTaskStore(path);
    try {
      expect(await second.findIdempotent('key:k', 'A2A_BOB')).toMatchObject({ taskId: 'a' });
      expect(await second.findIdempotent('key:k')).toBeUndefined();
    } finally {
      await second.close();
    }
  });
});
