// The contract every HubStore keeps, run against each implementation by test/hub/hub-store.test.ts.
import { expect, it } from 'vitest';
import { withNewCard, type HubAgent, type HubStore } from '../../src/hub/hub-store.js';

/** An agent as registered at `at`, with a card of `version`. */
export function makeHubAgent(id: string, version = '1.0.0', previous?: HubAgent, at = new Date('2026-11-23T10:00:00Z')): HubAgent {
  return withNewCard(previous, { id, owner: 'HUB_ALICE', kind: 'connected', card: { name: `Agent ${id}`, version, skills: [{ id: 'echo' }] }, version }, at);
}

export function hubStoreContract(open: () => Promise<HubStore>): void {
  it('stores, lists in id order, replaces and removes agents', async () => {
    const store = await open();
    await store.put(makeHubAgent('b'));
    await store.put(makeHubAgent('a'));
    expect((await store.list()).map((agent) => agent.id)).toEqual(['a', 'b']);
    expect(await store.get('a')).toEqual(makeHubAgent('a'));
    await store.put({ ...makeHubAgent('a'), owner: 'HUB_BOB' });
    expect((await store.get('a'))?.owner).toBe('HUB_BOB');
    expect(await store.remove('a')).toBe(true);
    expect(await store.remove('a')).toBe(false);
    expect(await store.get('a')).toBeUndefined();
  });

  it('keeps the card versions an agent published before, oldest first', async () => {
    const store = await open();
    const first = makeHubAgent('a', '1.0.0');
    const second = makeHubAgent('a', '1.1.0', first, new Date('2026-11-23T11:00:00Z'));
    const again = makeHubAgent('a', '1.1.0', second, new Date('2026-11-23T12:00:00Z'));
    await store.put(again);
    const stored = await store.get('a');
    expect(stored?.previousVersions).toEqual(['1.0.0']);
    expect(stored?.registeredAt).toBe('2026-11-23T10:00:00.000Z');
    expect(stored?.updatedAt).toBe('2026-11-23T12:00:00.000Z');
  });

  it('gives copies: changing what it returned changes nothing stored', async () => {
    const store = await open();
    await store.put(makeHubAgent('a'));
    const got = (await store.get('a')) as HubAgent;
    got.owner = 'someone else';
    got.previousVersions.push('9');
    expect(await store.get('a')).toEqual(makeHubAgent('a'));
  });

  it('saves an agent for its owner only: a new id, or one the same principal owns', async () => {
    const store = await open();
    expect(await store.putOwned(makeHubAgent('a'))).toBe(true);
    expect(await store.putOwned({ ...makeHubAgent('a', '2.0.0'), owner: 'HUB_BOB' })).toBe(false);
    expect(await store.get('a')).toEqual(makeHubAgent('a'));
    expect(await store.putOwned(makeHubAgent('a', '2.0.0'))).toBe(true);
    expect((await store.get('a'))?.version).toBe('2.0.0');
    // A plain put (the owner's own save, once checked) may still change hands.
    await store.put({ ...makeHubAgent('a'), owner: 'HUB_BOB' });
    expect(await store.putOwned(makeHubAgent('a'))).toBe(false);
    expect(await store.putOwned({ ...makeHubAgent('a'), owner: 'HUB_BOB' })).toBe(true);
  });
}
