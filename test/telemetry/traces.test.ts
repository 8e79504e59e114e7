// One trace across real processes: `a2a-lite run` → `a2a-lite hub` → two `serve --hub` agents
// whose exec programs record the TRACEPARENT they are given, every process exporting over
// OTLP/HTTP to a real receiver on 127.0.0.1. Then trace context that is malformed, in a header
// or in a lite header's parameter, is ignored without harm.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { getJson, script, start, startAgent, startHub, until, type Running } from '../hub/hub-processes.js';
import { otlpEnv, startReceiver, type ReceivedSpan, type Receiver } from './otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** An exec program that notes its TRACEPARENT (and TRACESTATE) in OUT and answers at once. */
function recordingProgram(out: string): string {
  return script('traced.sh', `#!/bin/sh\nprintf '%s %s' "$TRACEPARENT" "$TRACESTATE" > "${out}/$A2A_TASK_ID.tp"\necho "done $A2A_SKILL"\n`);
}

async function stop(...processes: Running[]): Promise<void> {
  for (const running of processes) running.child.kill('SIGTERM');
  await Promise.all(processes.map((running) => running.exited));
}

const spanOf = (spans: ReceivedSpan[], id: string | undefined): ReceivedSpan | undefined => spans.find((s) => s.spanId === id);

describe('traces across a plan, a hub and two agents', () => {
  it('makes one trace: workflow → step → A2A client → hub server → hub hop → agent server → exec turn, and the program sees TRACEPARENT', async () => {
    const env = otlpEnv(receiver);
    const out = tempHome('traceparents');
    const program = recordingProgram(out);
    const hub = await startHub(['--store', 'memory'], env);
    const alpha = await startAgent(hub.url, 'alpha-agent', { exec: program, skills: ['alpha:Alpha:First'], env });
    const beta = await startAgent(hub.url, 'beta-agent', { exec: program, skills: ['beta:Beta:Second'], env });
    await until(async () => ((await getJson(`${hub.url}/hub/v1/route?skill=beta`)).body.candidates as unknown[]).length === 1 || undefined, 10_000, 'both agents at the hub');
    const dir = tempHome('traced-plan');
    const plan = join(dir, 'plan.yaml');
    writeFileSync(plan, 'name: traced\nsteps:\n  - id: one\n    skill: alpha\n    text: first\n  - id: two\n    skill: beta\n    needs: [one]\n    text: then {{steps.one.text}}\n');
    const run = await cliAsync(['run', plan, '--hub', hub.url, '--json'], { home: join(dir, 'home'), cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    await stop(alpha, beta, hub);

    const spans = await until(() => (receiver.spans.some((s) => s.name === 'invoke_workflow traced') && receiver.spans.filter((s) => s.service === 'a2a-lite-serve' && s.kind === SERVER).length >= 2 ? receiver.spans : undefined), 15_000, 'the spans of every process');
    const workflow = spans.find((s) => s.name === 'invoke_workflow traced') as ReceivedSpan;
    const trace = spans.filter((s) => s.traceId === workflow.traceId);
    // Every span of the run, the hub and the agents is in the workflow's trace.
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['a2a-lite-run', 'a2a-lite-hub', 'a2a-lite-serve']));
    expect(workflow).toMatchObject({ kind: INTERNAL, parentSpanId: undefined, attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.workflow.name': 'traced' } });

    const agentServers = trace.filter((s) => s.service === 'a2a-lite-serve' && s.kind === SERVER && s.attributes['a2a.method.name'] !== undefined);
    const names = new Set(agentServers.map((s) => s.attributes['gen_ai.agent.name']));
    expect(names).toEqual(new Set(['Agent alpha-agent', 'Agent beta-agent']));
    const sends = agentServers.filter((s) => /Send/.test(s.name));
    expect(sends.length).toBeGreaterThanOrEqual(2);
    for (const server of sends) {
      // agent server ← hub hop (CLIENT) ← hub server ← the run's A2A call ← the step ← the workflow
      const hop = spanOf(trace, server.parentSpanId) as ReceivedSpan;
      expect(hop).toMatchObject({ service: 'a2a-lite-hub', kind: CLIENT, name: server.name });
      const hubServer = spanOf(trace, hop.parentSpanId) as ReceivedSpan;
      expect(hubServer).toMatchObject({ service: 'a2a-lite-hub', kind: SERVER, name: server.name });
      const call = spanOf(trace, hubServer.parentSpanId) as ReceivedSpan;
      expect(call).toMatchObject({ service: 'a2a-lite-run', kind: CLIENT, name: server.name, attributes: { 'a2a.method.name': server.name } });
      const step = spanOf(trace, call.parentSpanId) as ReceivedSpan;
      expect(step).toMatchObject({ kind: CLIENT, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
      expect(step.name).toMatch(/^invoke_agent/);
      expect(step.parentSpanId).toBe(workflow.spanId);
      expect(server.attributes).toMatchObject({ 'a2a.protocol.version': '1.0', 'gen_ai.conversation.id': workflow.attributes['gen_ai.conversation.id'] });
      expect(server.attributes['a2a.task.id']).toEqual(expect.any(String));
    }
    // Each exec turn is a child of its agent's server span, and its program got that turn's span.
    const turns = trace.filter((s) => s.name === 'invoke_agent' && s.service === 'a2a-lite-serve');
    expect(turns).toHaveLength(2);
    const files = readdirSync(out).filter((name) => name.endsWith('.tp'));
    expect(files).toHaveLength(2);
    for (const turn of turns) {
      expect(spanOf(trace, turn.parentSpanId)).toMatchObject({ kind: SERVER, service: 'a2a-lite-serve' });
      const seen = readFileSync(join(out, `${turn.attributes['a2a.task.id'] as string}.tp`), 'utf8');
      expect(seen.trim()).toBe(`00-${turn.traceId}-${turn.spanId}-01`);
      expect(turn.attributes['a2a.task.state']).toBe('TASK_STATE_COMPLETED');
    }
  }, 90_000);

  it('ignores a malformed traceparent, a huge tracestate and a bad lite parameter, and follows a good lite parameter', async () => {
    const env = otlpEnv(receiver);
    const out = tempHome('traceparents-hostile');
    const home = tempHome('agent-hostile');
    const made = await cliAsync(['card', 'init', '--id', 'hostile', '--name', 'Hostile', '--skill', 'echo:Echo:Says it back'], { home });
    expect(made.code, made.stderr).toBe(0);
    const agent = await start(['serve', '--home', home, '--store', 'memory', '--host', '127.0.0.1', '--port', '0', '--exec', recordingProgram(out)], { A2A_LITE_HOME: home, ...env });
    const url = agent.info.url as string;
    const send = async (text: string, headers: Record<string, string>, id: string): Promise<number> => {
      const response = await fetch(`${url}/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] } } }),
      });
      await response.text();
      return response.status;
    };
    const good = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(await send('hello', { traceparent: 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }, 'bad-version')).toBe(200);
    expect(await send('hello', { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }, 'zero-trace')).toBe(200);
    expect(await send('hello', { traceparent: `${good}-extra` }, 'extra-field')).toBe(200);
    expect(await send('hello', { traceparent: 'x'.repeat(4000) }, 'huge-parent')).toBe(200);
    expect(await send('hello', { traceparent: good, tracestate: `k=${'v'.repeat(8000)}` }, 'huge-state')).toBe(200);
    expect(await send('[A2A:task id=lite-bad traceparent=not-a-trace]\nhello', {}, 'lite-bad')).toBe(200);
    expect(await send(`[A2A:task id=lite-good traceparent=${good} tracestate=vendor=1]\nhello`, {}, 'lite-good')).toBe(200);
    await stop(agent);

    const servers = await until(() => {
      const found = receiver.spans.filter((s) => s.service === 'a2a-lite-serve' && s.kind === SERVER && s.attributes['gen_ai.agent.name'] === 'Hostile');
      return found.length >= 7 ? found : undefined;
    }, 15_000, 'the seven server spans');
    const byMessage = (id: string): ReceivedSpan => servers.find((s) => s.attributes['a2a.message.id'] === id) as ReceivedSpan;
    for (const id of ['bad-version', 'zero-trace', 'extra-field', 'huge-parent', 'lite-bad']) {
      expect(byMessage(id).parentSpanId, id).toBeUndefined();
      expect(byMessage(id).traceId, id).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    }
    // A tracestate past the limit is dropped; the traceparent beside it still counts.
    expect(byMessage('huge-state')).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7' });
    // In a lite header, where chat has no headers, the parameter is the parent.
    expect(byMessage('lite-good')).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7' });
    const seen = readFileSync(join(out, `${byMessage('lite-good').attributes['a2a.task.id'] as string}.tp`), 'utf8');
    expect(seen).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01 vendor=1$/);
  }, 60_000);
});
