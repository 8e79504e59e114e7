// `serve --hub` opens no port of its own unless asked, checked on the real process: its start-up
// line names none, and Linux's table of sockets (/proc/net/tcp, tcp6) holds no listening socket
// of the process; the agent still answers through the hub. With --port it listens as asked.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startAgent, startHub, until } from './hub-processes.js';

const linux = existsSync('/proc/net/tcp');

/** The ports `pid` listens on over TCP: its socket inodes, found in the kernel's socket tables. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // The descriptor closed while being read.
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is fields[1] (ADDR:PORT in hex), st fields[3] (0A: LISTEN), inode fields[9].
      if (fields[3] === '0A' && inodes.has(fields[9] ?? '')) ports.push(parseInt((fields[1] ?? '').split(':')[1] ?? '', 16));
    }
  }
  return ports;
}

/** A message to agent `id` through the hub, over JSON-RPC: the task's state and first words. */
async function sendThrough(hubUrl: string, id: string, text: string): Promise<{ state: string; text: string }> {
  const response = await fetch(`${hubUrl}/agents/${id}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text }] } } }),
  });
  const { result } = (await response.json()) as { result: { task: { status: { state: string }; artifacts?: { parts: { text?: string }[] }[] } } };
  return { state: result.task.status.state, text: result.task.artifacts?.[0]?.parts[0]?.text ?? '' };
}

describe.skipIf(!linux)('serve --hub and its own port', () => {
  it('by default listens on no port, and answers through the hub', async () => {
    const hub = await startHub();
    const agent = await startAgent(hub.url, 'portless', { extra: [] });
    expect(agent.info.listening).toBe('none');
    expect(agent.info.url).toBe(`${hub.url}/agents/portless`);
    expect(listeningPorts(agent.child.pid as number)).toEqual([]);
    await until(async () => (await fetch(`${hub.url}/hub/v1/agents/portless`)).ok || undefined, 15_000, 'the agent registered');
    expect(await sendThrough(hub.url, 'portless', 'echo through the hub')).toEqual({ state: 'TASK_STATE_COMPLETED', text: 'echo: through the hub' });
    // Still none once it has served.
    expect(listeningPorts(agent.child.pid as number)).toEqual([]);
  });

  it('with --port N listens there too, as asked', async () => {
    const hub = await startHub();
    const agent = await startAgent(hub.url, 'ported', { extra: ['--port', '0'] });
    const own = new URL(agent.info.listening as string);
    expect(listeningPorts(agent.child.pid as number)).toEqual([Number(own.port)]);
    const card = (await (await fetch(`${own.origin}/.well-known/agent-card.json`)).json()) as { name: string };
    expect(card.name).toBe('Agent ported');
  });
});
