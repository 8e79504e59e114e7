// The PushStore contract: every store that keeps push configs and the outbox must pass these.
import { describe, expect, it } from 'vitest';
import type { PushConfig } from '../../src/model/push-config.js';
import type { PushStore } from '../../src/store/push-store.js';
import { withStores } from './with-stores.js';

type Store = PushStore & { close(): Promise<void> };

export function makeConfig(overrides: Partial<PushConfig> = {}): PushConfig {
  return { id: 'cfg-1', taskId: 't-1', url: 'https://client.example/hook', version: '1.0', ...overrides };
}

export function pushStoreContract(name: string, open: () => Promise<Store> | Store): void {
  describe(`${name} (PushStore contract)`, () => {
    const stores = withStores(open);

    it('keeps configs per task, as copies, and replaces one saved again in its place', async () => {
      const s = await stores.open();
      const first = makeConfig({ token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } });
      await s.savePushConfig(first);
      await s.savePushConfig(makeConfig({ id: 'cfg-2', version: '0.3' }));
      await s.savePushConfig(makeConfig({ taskId: 't-2' }));
      expect(await s.getPushConfig('t-1', 'cfg-1')).toEqual(first);
      const back = (await s.getPushConfig('t-1', 'cfg-1')) as PushConfig;
      back.url = 'https://changed.example/';
      expect(await s.getPushConfig('t-1', 'cfg-1')).toEqual(first);

      await s.savePushConfig(makeConfig({ url: 'https://client.example/other' }));
      expect((await s.listPushConfigs('t-1')).map((c) => [c.id, c.url])).toEqual([
        ['cfg-1', 'https://client.example/other'],
        ['cfg-2', 'https://client.example/hook'],
      ]);
      expect(await s.listPushConfigs('t-3')).toEqual([]);
      expect(await s.getPushConfig('t-2', 'cfg-2')).toBeUndefined();
    });

    it('keeps ids that look alike apart', async () => {
      const s = await stores.open();
      await s.savePushConfig(makeConfig({ taskId: 'a', id: 'b:c' }));
      await s.savePushConfig(makeConfig({ taskId: 'a:b', id: 'c' }));
      await s.savePushConfig(makeConfig({ taskId: '任务\u0000', id: '\ud800' }));
      expect((await s.listPushConfigs('a')).map((c) => c.id)).toEqual(['b:c']);
      expect((await s.listPushConfigs('a:b')).map((c) => c.id)).toEqual(['c']);
      expect((await s.getPushConfig('任务\u0000', '\ud800'))?.id).toBe('\ud800');
    });

    it('appends deliveries in order and hands them back until removed', async () => {
      const s = await stores.open();
      const added = await s.addDeliveries([
        { taskId: 't-1', configId: 'cfg-1', body: '{"n":1}' },
        { taskId: 't-1', configId: 'cfg-2', body: '{"n":2}' },
      ]);
      const more = await s.addDeliveries([{ taskId: '任务', configId: 'cfg-1', body: '{"n":3}' }]);
      expect(added.map((d) => d.attempts)).toEqual([0, 0]);
      const seqs = [...added, ...more].map((d) => d.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(3);

      await s.recordAttempt(seqs[1] as number, 2);
      await s.removeDelivery(seqs[0] as number);
      expect(await s.pendingDeliveries()).toEqual([
        { seq: seqs[1], taskId: 't-1', configId: 'cfg-2', body: '{"n":2}', attempts: 2 },
        { seq: seqs[2], taskId: '任务', configId: 'cfg-1', body: '{"n":3}', attempts: 0 },
      ]);
      // A seq is never handed out twice, even once the newest delivery is gone.
      await s.removeDelivery(seqs[2] as number);
      const [next] = await s.addDeliveries([{ taskId: 't-1', configId: 'cfg-1', body: '{}' }]);
      expect(next?.seq).toBeGreaterThan(seqs[2] as number);
    });

    it('deletes a config with its pending deliveries, and says whether there was one', async () => {
      const s = await stores.open();
      await s.savePushConfig(makeConfig());
      await s.savePushConfig(makeConfig({ id: 'cfg-2' }));
      await s.addDeliveries([
        { taskId: 't-1', configId: 'cfg-1', body: 'a' },
        { taskId: 't-1', configId: 'cfg-2', body: 'b' },
      ]);
      expect(await s.deletePushConfig('t-1', 'cfg-1')).toBe(true);
      expect(await s.deletePushConfig('t-1', 'cfg-1')).toBe(false);
      expect((await s.listPushConfigs('t-1')).map((c) => c.id)).toEqual(['cfg-2']);
      expect((await s.pendingDeliveries()).map((d) => d.body)).toEqual(['b']);
    });
  });
}
