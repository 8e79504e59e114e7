// A link the hub is in doubt about (silent for a while) is pinged before a request goes down it.
// An agent that is only slow, as on a busy machine, must still get the request: here the agent's
// process is frozen for half a second while the hub asks, and the send is answered, not refused;
// and many requests that find the link in doubt at once all go down it.
import { afterEach, describe, expect, it } from 'vitest';
import { startAgent, startHub, until, type Running } from './hub-processes.js';

const running: Running[] = [];
afterEach(() => {
  for (const one of running.splice(0)) one.child.kill('SIGKILL');
});

const send = async (url: string, text: string): Promise<{ status: number; body: string; delivery: string | null }> => {
  const response = await fetch(`${url}/agents/slow/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } } }),
  });
  return { status: response.status, body: await response.text(), delivery: response.headers.get('a2a-lite-delivery') };
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A hub and an agent routed through it, its link then silent past the hub's 100 ms: the next request is held until a ping is answered. */
async function quietLink(): Promise<{ hub: Running & { url: string }; agent: Running }> {
  const hub = await startHub();
  running.push(hub);
  const agent = await startAgent(hub.url, 'slow');
  running.push(agent);
  await until(async () => ((await send(hub.url, 'echo warm')).status === 200 ? true : undefined), 15_000, 'the agent routed');
  await sleep(300);
  return { hub, agent };
}

describe('a link in doubt', () => {
  it('delivers to an agent that answers the ping late, because it was frozen for 500 ms', async () => {
    const { hub, agent } = await quietLink();
    agent.child.kill('SIGSTOP');
    const answer = send(hub.url, 'echo late');
    await sleep(500);
    agent.child.kill('SIGCONT');
    const { status, body, delivery } = await answer;
    expect({ status, delivery }).toEqual({ status: 200, delivery: null });
    expect(body).toContain('late');
  }, 30_000);

  it('delivers every one of 40 requests that find the link in doubt at once (one ping answers them all)', async () => {
    const { hub, agent } = await quietLink();
    // Frozen while the burst comes, the agent answers no ping before all 40 are held.
    agent.child.kill('SIGSTOP');
    const burst = Promise.all(Array.from({ length: 40 }, (_, i) => send(hub.url, `echo burst-${i}`)));
    await sleep(300);
    agent.child.kill('SIGCONT');
    const answers = await burst;
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body)).toEqual([]);
    expect(answers.every((answer, i) => answer.body.includes(`burst-${i}`))).toBe(true);
  }, 30_000);
});
