// Webhook targets for the fault tests: HTTP servers on 127.0.0.1 that note when each request
// arrived and answer as told at that moment: at once with a status, or after a delay. A target
// can be started on a port chosen earlier, which is how a webhook that was down comes up.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Arrival {
  at: number;
  body: string;
  json: Record<string, unknown>;
}

/** How a target answers: a status at once, or a status after `delayMs`. */
export type Behaviour = { status: number; delayMs?: number };

export interface Target {
  url: string;
  port: number;
  /** Every request, in arrival order. */
  arrivals: Arrival[];
  /** The requests answered with a 2xx. */
  delivered: Arrival[];
  behaviour: Behaviour;
  close(): Promise<void>;
}

const open = new Set<Target>();
afterEach(async () => {
  await Promise.all([...open].map((target) => target.close()));
});

/** Starts a target on `port` (0: any free port). */
export async function startTarget(behaviour: Behaviour, port = 0, path = '/hook'): Promise<Target> {
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const arrival: Arrival = { at: Date.now(), body, json: parseJson(body) };
      target.arrivals.push(arrival);
      const { status, delayMs = 0 } = target.behaviour;
      const answer = (): void => {
        // A connection the sender gave up on is no delivery.
        if (res.destroyed) return;
        if (status >= 200 && status < 300) target.delivered.push(arrival);
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (delayMs <= 0) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, delayMs);
      timers.add(timer);
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  const target: Target = {
    url: `http://127.0.0.1:${bound}${path}`,
    port: bound,
    arrivals: [],
    delivered: [],
    behaviour,
    close: () =>
      new Promise<void>((resolve) => {
        open.delete(target);
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  open.add(target);
  return target;
}

/**
 * A port on 127.0.0.1 that nothing listens on: connecting is refused until a target starts
 * there. Taken below the ephemeral range, so that no port-0 listener of another test gets it.
 */
export async function refusedPort(): Promise<number> {
  for (let tries = 0; tries < 50; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const probe = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      return port;
    }
  }
  throw new Error('no free port between 20000 and 30000');
}

/** The task a 1.0 StreamResponse is about, and the state it tells (if any). */
export function eventOf(json: Record<string, unknown>): { taskId?: string; kind: string; state?: string; timestamp?: string } {
  const [kind, value] = (Object.entries(json)[0] ?? ['none', {}]) as [string, Record<string, unknown>];
  const status = value.status as { state?: string; timestamp?: string } | undefined;
  const taskId = (kind === 'task' ? value.id : value.taskId) as string | undefined;
  return { kind, ...(taskId === undefined ? {} : { taskId }), ...(status?.state === undefined ? {} : { state: status.state }), ...(status?.timestamp === undefined ? {} : { timestamp: status.timestamp }) };
}

function parseJson(body: string): Record<string, unknown> {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return {};
  }
}
