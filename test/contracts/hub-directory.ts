// The contract of a hub cluster's directory (src/hub/cluster/directory.ts), kept by the in-process
// one and the PostgreSQL one alike: leases of instances, links of agents, leases of jobs.
// `open` gives a fresh directory each time; `lapse` waits until a lease given with LAPSING_MS has
// run out (bounded), so that no test depends on a clock it cannot see.
import { expect, it } from 'vitest';
import type { HubDirectory } from '../../src/hub/cluster/directory.js';

/** A lease short enough to run out during a test. */
export const LAPSING_MS = 30;
const LONG_MS = 60_000;

async function lapse(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, LAPSING_MS * 3));
}

export function hubDirectoryContract(open: () => Promise<HubDirectory>): void {
  it('renews instances, saying when a lease is new, and lists those alive', async () => {
    const directory = await open();
    expect(await directory.renew('a', LONG_MS)).toEqual({ fresh: true, alive: ['a'] });
    expect(await directory.renew('a', LONG_MS)).toEqual({ fresh: false, alive: ['a'] });
    const b = await directory.renew('b', LONG_MS);
    expect(b.fresh).toBe(true);
    expect([...b.alive].sort()).toEqual(['a', 'b']);
    await directory.leave('b');
    expect((await directory.renew('a', LONG_MS)).alive).toEqual(['a']);
  });

  it('keeps the latest link of each agent, with a larger epoch, and drops it only for its holder', async () => {
    const directory = await open();
    await directory.renew('a', LONG_MS);
    await directory.renew('b', LONG_MS);
    const first = (await directory.link('x', 'a', 'websocket')) as number;
    expect(await directory.linkOf('x')).toEqual({ agentId: 'x', instance: 'a', kind: 'websocket', epoch: first });
    const second = (await directory.link('x', 'b', 'event-stream')) as number;
    expect(second).toBeGreaterThan(first);
    await directory.unlink('x', 'a');
    expect(await directory.linkOf('x')).toMatchObject({ instance: 'b', kind: 'event-stream' });
    await directory.link('y', 'a', 'websocket');
    expect((await directory.links()).map((link) => `${link.agentId}@${link.instance}`).sort()).toEqual(['x@b', 'y@a']);
    await directory.unlink('x', 'b');
    expect(await directory.linkOf('x')).toBeUndefined();
    await directory.leave('a');
    expect(await directory.links()).toEqual([]);
  });

  it('claims a link back only when no instance alive holds it', async () => {
    const directory = await open();
    await directory.renew('a', LONG_MS);
    await directory.renew('b', LONG_MS);
    await directory.link('x', 'b', 'websocket');
    expect(await directory.link('x', 'a', 'websocket', false)).toBeUndefined();
    expect(await directory.linkOf('x')).toMatchObject({ instance: 'b' });
    expect(await directory.link('x', 'b', 'websocket', false)).toBeGreaterThan(0);
    await directory.link('z', 'a', 'websocket');
    await directory.renew('b', LAPSING_MS);
    await lapse();
    expect(await directory.link('x', 'a', 'websocket', false)).toBeGreaterThan(0);
    expect(await directory.linkOf('x')).toMatchObject({ instance: 'a' });
  });

  it('hides the links of an instance whose lease ran out, and shows them again when it renews', async () => {
    const directory = await open();
    await directory.renew('a', LAPSING_MS);
    await directory.link('x', 'a', 'websocket');
    await lapse();
    expect(await directory.linkOf('x')).toBeUndefined();
    expect(await directory.links()).toEqual([]);
    expect(await directory.renew('a', LONG_MS)).toEqual({ fresh: true, alive: ['a'] });
    expect(await directory.linkOf('x')).toMatchObject({ instance: 'a' });
  });

  it('gives each job to one instance at a time, and to another once its lease runs out', async () => {
    const directory = await open();
    await directory.renew('a', LONG_MS);
    await directory.renew('b', LONG_MS);
    expect(await directory.lead('checks', 'a', LAPSING_MS)).toBe(true);
    expect(await directory.lead('checks', 'b', LONG_MS)).toBe(false);
    expect(await directory.lead('other', 'b', LONG_MS)).toBe(true);
    await lapse();
    expect(await directory.lead('checks', 'b', LONG_MS)).toBe(true);
    expect(await directory.lead('checks', 'a', LONG_MS)).toBe(false);
    expect(await directory.lead('checks', 'b', LONG_MS)).toBe(true);
  });

  it('forgets instances long gone, and their links', async () => {
    const directory = await open();
    await directory.renew('a', LAPSING_MS);
    await directory.link('x', 'a', 'websocket');
    await lapse();
    await directory.sweep(0);
    // Forgotten: a renewal now finds its links gone, not hidden.
    await directory.renew('a', LONG_MS);
    expect(await directory.linkOf('x')).toBeUndefined();
  });
}
