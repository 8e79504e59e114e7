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
  server = spawn(process.execPath, [BIN, 'serve', '--home', join(set.dir, 'planner'), '--host', '127.0.0.1', '--port', '0', '--store', 'memory', '--json', '--plan', plan], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server?.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
    });
    server?.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(url);
}, 30_000);

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const gone = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
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

  it('refuses a task that gives the plan nothing to work on', async () => {
    const answer = await client.sendMessage(sendRequest(userMessage('   ')));
    expect('status' in answer && answer.status?.state).toBe(7); // TASK_STATE_REJECTED
  });
});
