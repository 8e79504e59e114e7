// Ctrl-C on `send` against an agent that cancels a task when its stream closes and refuses
// CancelTask as "not cancelable" (seen in several A2A frameworks): send asks for the cancel
// while the stream is still open, and when the agent refuses, looks the task up, so that the
// user and the ledger see it cancelled.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, cliInterrupted } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';

interface Fake {
  url: string;
  server: Server;
  calls: string[];
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A JSON-RPC 1.0 agent that streams steps, cancels on disconnect, and never accepts CancelTask. */
async function fake(): Promise<Fake> {
  const calls: string[] = [];
  let state = 'TASK_STATE_WORKING';
  const task = () => ({ id: 'task-1', contextId: 'ctx-1', status: { state, timestamp: new Date().toISOString() }, history: [], artifacts: [] });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'Stubborn',
            description: 'cancels when the stream closes',
            version: '1.0.0',
            supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
            capabilities: { streaming: true },
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [{ id: 'work', name: 'Work', description: 'works slowly', tags: ['work'] }],
          }),
        );
        return;
      }
      const request = JSON.parse(body) as { id: number; method: string };
      calls.push(request.method);
      const reply = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...(result as object) }));
      if (request.method === 'GetTask') return reply({ result: task() });
      if (request.method === 'CancelTask') return reply({ error: { code: -32002, message: 'task task-1 is not cancelable' } });
      if (request.method !== 'SendStreamingMessage') return reply({ error: { code: -32601, message: 'no' } });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (result: unknown) => res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n\n`);
      send({ task: task() });
      let step = 0;
      const timer = setInterval(() => {
        step += 1;
        send({ statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state, timestamp: new Date().toISOString(), message: { messageId: `m${step}`, role: 'ROLE_AGENT', parts: [{ text: `step ${step}` }] } } } });
      }, 100);
      res.on('close', () => {
        clearInterval(timer);
        state = 'TASK_STATE_CANCELED';
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, calls };
}

describe('Ctrl-C against an agent that cancels on disconnect', () => {
  it('asks for the cancel before closing the stream, and records the task as cancelled when the agent refuses', async () => {
    const agent = await fake();
    const home = tempHome();
    const { code, stdout, stderr } = await cliInterrupted(['send', agent.url, 'work slowly'], 'step 2', { home });
    expect(agent.calls.indexOf('CancelTask')).toBeGreaterThan(agent.calls.indexOf('SendStreamingMessage'));
    expect(agent.calls).toContain('GetTask');
    expect(stdout, stderr).toContain('[A2A:result task=task-1 state=cancelled]');
    expect(code).toBe(12);
    const recorded = JSON.parse(cli(['tasks', 'show', 'task-1', '--json'], { home }).stdout) as { state: string };
    expect(recorded.state).toBe('cancelled');
  });
});
