// A plan served as an agent (`a2a-lite serve --plan`) and called by the official @a2a-js/sdk
// client over 127.0.0.1: one task runs the whole plan against real `serve --exec` agents, the
// steps arrive as status updates with progress, and the result carries the output's file.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StreamResponse } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../cli/run-cli.js';
import { sendRequest, userMessage } from '../interop/sdk-requests.js';
import { AgentSet } from './agents.js';

const set = new AgentSet();
let server: ChildProcess | undefined;
let client: Client;
let slowServer: ChildProcess | undefined;
let slowClient: Client;
const tag = `served-${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  const alpha = await set.start('alpha');
  const plan = join(set.dir, 'report.yaml');
  writeFileSync(
    plan,
    `name: report
description: Writes a short report from two parts made side by side.
inputs: [topic]
steps:
  - id: partA
    agent: ${alpha.url}
    text: sleep 600 A on {{inputs.topic}} ${tag}
  - id: partB
    agent: ${alpha.url}
    text: sleep 600 B on {{inputs.topic}} ${tag}
  - id: doc
    agent: ${alpha.url}
    text: write ${tag}.md {{steps.partA.text}} + {{steps.partB.text}}
output:
  text: "Report on {{inputs.topic}}: {{steps.doc.text}}"
  files: [doc]
`,
  );
  [server, client] = await servePlan(plan, 'planner');
  const slowPlan = join(set.dir, 'slow.yaml');
  writeFileSync(slowPlan, `name: slow\ninputs: [text]\nsteps:\n  - id: wait\n    agent: ${alpha.url}\n    each: [a, b]\n    text: sleep 30000 {{item}} {{inputs.text}}\n`);
  [slowServer, slowClient] = await servePlan(slowPlan, 'slow-planner');
}, 30_000);

/** Serves `plan` with `a2a-lite serve --plan` from a home of its own; the SDK client for it. */
async function servePlan(plan: string, home: string): Promise<[ChildProcess, Client]> {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', join(set.dir, home), '--host', '127.0.0.1', '--port', '0', '--store', 'memory', '--json', '--plan', plan, '--allow-private-agents'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return [child, await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(url)];
}

afterAll(async () => {
  for (const child of [server, slowServer]) {
    if (child === undefined || child.exitCode !== null) continue;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
  await set.close();
});

describe('a2a-lite serve --plan', () => {
  it('serves the plan as one skill on a card of its own', async () => {
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toEqual(['report']);
    expect(card.description).toContain('two parts made side by side');
  });

  it('runs the plan for one task from the SDK client: steps as status updates, the output with its file as the result', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(sendRequest(userMessage('agents')))) events.push(event);
    const updates = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status] : []));
    const words = updates.map((s) => (s?.message?.parts[0]?.content?.$case === 'text' ? s.message.parts[0].content.value : ''));
    expect(words).toEqual(expect.arrayContaining(['step partA: completed', 'step partB: completed', 'step doc: completed']));
    expect(updates.at(-1)?.state).toBe(3); // TASK_STATE_COMPLETED
    // Progress rises with the steps that ended: a third, two thirds, all.
    const progress = updates.map((s) => (s?.message?.metadata as { a2aLite?: { progress?: number } } | undefined)?.a2aLite?.progress).filter((p) => p !== undefined);
    expect(progress).toEqual(expect.arrayContaining([33, 67, 100]));
    const artifacts = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value.artifact] : []));
    const parts = artifacts.flatMap((a) => a?.parts ?? []).map((p) => p.content);
    expect(parts).toContainEqual({ $case: 'text', value: `Report on agents: wrote ${tag}.md` });
    const file = parts.find((p) => p?.$case === 'raw');
    expect(Buffer.from(file?.$case === 'raw' ? file.value : new Uint8Array()).toString('utf8')).toBe(`A on agents ${tag} + B on agents ${tag}\n`);
    // Behind the one task: each step once, the two parts side by side.
    expect(set.started(`sleep 600 A on agents ${tag}`)).toBe(1);
    expect(set.started(`sleep 600 B on agents ${tag}`)).toBe(1);
    expect(set.peak(tag)).toBe(2);
  });

  it('cancels every running subtask at its agent when the client cancels the task', async () => {
    const tag = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const stream = slowClient.sendMessageStream(sendRequest(userMessage(tag)));
    let taskId = '';
    const running = new Set<string>();
    for await (const event of stream) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      if (event.payload?.$case === 'statusUpdate') {
        taskId = event.payload.value.taskId;
        const words = event.payload.value.status?.message?.parts[0]?.content;
        if (words?.$case === 'text' && words.value === 'step wait: running') break;
      }
    }
    // Both items have started at the agent (each logs its start before it can be cancelled).
    for (let i = 0; i < 100 && set.lines().filter((l) => l.event === 'start' && l.text.endsWith(tag)).length < 2; i += 1) await new Promise((r) => setTimeout(r, 100));
    for (const line of set.lines()) if (line.event === 'start' && line.text.endsWith(tag)) running.add(line.task);
    expect(running.size).toBe(2);
    const cancelled = await slowClient.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(5); // TASK_STATE_CANCELED
    for (let i = 0; i < 100 && set.lines().filter((l) => l.event === 'cancel' && l.text.endsWith(tag)).length < 2; i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(new Set(set.lines().filter((l) => l.event === 'cancel' && l.text.endsWith(tag)).map((l) => l.task))).toEqual(running);
  });

  it('refuses a task that gives the plan nothing to work on', async () => {
    const answer = await client.sendMessage(sendRequest(userMessage('   ')));
    expect('status' in answer && answer.status?.state).toBe(7); // TASK_STATE_REJECTED
  });
});
