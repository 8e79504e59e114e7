// The hub across a real NAT (test/fixtures/nat-lab.ts): the hub and a client on the public side,
// two agents on home hosts behind one masquerading router that lets nothing in. Mappings expire
// while an agent is idle and while it streams, a send is routed to a link that has just died,
// and the router is cut. Each case measures who noticed what, and when; the figures are printed
// as one report line (docs/hub.md quotes them). The hub runs with its defaults: a ping once a
// link is silent for 2 s, dead after 2 missed (4 s), a write unacknowledged for 3 s.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli } from '../cli/run-cli.js';
import { labMissing, NatLab } from '../fixtures/nat-lab.js';
import { needsTool } from '../needs-tool.js';
import { until } from './hub-processes.js';

const missing = labMissing();
const skip = needsTool('the hub across a real NAT (network namespaces)', missing === undefined, missing ?? '');

const PROGRAM = fileURLToPath(new URL('../fixtures/nat-agent.mjs', import.meta.url));
const WATCH = fileURLToPath(new URL('../fixtures/nat-watch.mjs', import.meta.url));
/** The hub's defaults (relay.ts): how long a dead link may take to be found. */
const HEARTBEAT_MS = 2000;
const MISSED = 2;
/** Room for a loaded machine: every timing is asserted against the configured detection time plus this. */
const SLACK_MS = 4000;
const DETECTION_MS = HEARTBEAT_MS * MISSED;

const TOKENS = { NAT_ALICE: 'alice-token-0123456789', NAT_BOB: 'bob-token-0123456789' };

interface Health {
  at: number;
  agentId: string;
  up: boolean;
  reason?: string;
}

/** A process whose output lines are kept, each with the time it was read. */
class Lines {
  readonly lines: { at: number; text: string }[] = [];
  constructor(readonly child: ChildProcess, stream: 'stdout' | 'stderr' = 'stdout') {
    let rest = '';
    child[stream]?.setEncoding('utf8');
    child[stream]?.on('data', (chunk: string) => {
      rest += chunk;
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      for (const text of parts) this.lines.push({ at: Date.now(), text });
    });
  }
}

describe.skipIf(skip)('the hub across a real NAT', () => {
  const lab = new NatLab();
  // The suite's own folder, kept across its tests (a test's temporary homes go after each test).
  const root = mkdtempSync(join(tmpdir(), 'a2a-lite-nat-'));
  const runs = join(root, 'runs.txt');
  let homes = 0;
  const home = (): string => {
    const dir = join(root, `home-${(homes += 1)}`);
    mkdirSync(dir);
    return dir;
  };
  const hubUrl = `http://${lab.hubAddress}:7400`;
  const report: Record<string, number> = {};
  let watch: Lines;
  const agents: Record<string, { out: Lines; err: Lines }> = {};

  const health = (): Health[] => watch.lines.map((l) => JSON.parse(l.text) as Health & { watching?: number }).filter((h) => h.agentId !== undefined);
  const firstAfter = (since: number, agentId: string, up: boolean): Health | undefined => health().find((h) => h.at >= since && h.agentId === agentId && h.up === up);
  /** The time the agent wrote that it lost the hub, read from its own line (it says when). */
  const agentNoticed = (agentId: string, since: number): { at: number; line: string } | undefined => {
    for (const { text } of agents[agentId]?.err.lines ?? []) {
      const said = /lost the hub .*, at (\S+); /.exec(text);
      if (said !== null && Date.parse(said[1] as string) >= since) return { at: Date.parse(said[1] as string), line: text };
    }
    return undefined;
  };
  const ranOf = (text: string): string[] => readFileSync(runs, 'utf8').split('\n').filter((line) => line.endsWith(` ${text}`));
  /** When the agent said it is connected (routed) again after `since`: it is reachable from then on. */
  const agentBack = (agentId: string, since: number): number | undefined => agents[agentId]?.err.lines.find((l) => l.at >= since && /^a2a-lite serve: connected to the hub /.test(l.text))?.at;
  /**
   * When the hub let go of the agent's dead link after `since`: its down event, or, when the agent
   * noticed first and dialled again, the new link that took its place (the agent never went down).
   */
  const hubLetGo = (agentId: string, since: number): { at: number; reason: string } | undefined => {
    const down = firstAfter(since, agentId, false);
    if (down !== undefined) return { at: down.at, reason: down.reason ?? '' };
    const back = agentBack(agentId, since);
    return back === undefined ? undefined : { at: back, reason: 'replaced by the agent\'s new link' };
  };

  /** `a2a-lite ARGS` as a client on the public side: its exit, output, and how long it took. */
  const client = (args: readonly string[], token = 'NAT_ALICE'): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> => {
    const started = Date.now();
    const child = lab.spawn(lab.ns.pub, [process.execPath, BIN, ...args, '--token-env', token], { A2A_LITE_HOME: home(), ...TOKENS });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    return new Promise((resolve) =>
      child.once('exit', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      }),
    );
  };

  const startAgent = async (host: 'h1' | 'h2', id: string, token: string, extra: string[] = []): Promise<void> => {
    const dir = home();
    const made = cli(['card', 'init', '--id', id, '--name', `Agent ${id}`, '--skill', 'echo:Echo:Says it back'], { home: dir });
    if (made.code !== 0) throw new Error(made.stderr);
    const child = lab.spawn(lab.ns[host], [process.execPath, BIN, 'serve', '--home', dir, '--store', 'memory', '--exec', `${JSON.stringify(process.execPath)} ${JSON.stringify(PROGRAM)}`, '--hub', hubUrl, '--hub-token-env', token, ...extra, '--json'], { ...TOKENS, A2A_LITE_HOME: dir, A2A_NAT_RUNS: runs, A2A_NAT_AGENT: id });
    agents[id] = { out: new Lines(child), err: new Lines(child, 'stderr') };
    await until(() => health().some((h) => h.agentId === id && h.up) || undefined, 20_000, `${id} connected`);
  };

  beforeAll(async () => {
    writeFileSync(runs, '');
    lab.build();
    const hub = lab.spawn(lab.ns.pub, [process.execPath, BIN, 'hub', '--host', lab.hubAddress, '--port', '7400', '--store', 'memory', '--token-env', 'NAT_ALICE', '--token-env', 'NAT_BOB', '--json'], TOKENS);
    const hubOut = new Lines(hub);
    await until(() => hubOut.lines.length > 0 || undefined, 20_000, 'the hub to start');
    watch = new Lines(lab.spawn(lab.ns.pub, [process.execPath, WATCH], { A2A_NAT_HUB: hubUrl, A2A_NAT_TOKEN: TOKENS.NAT_ALICE }));
    await until(() => watch.lines.length > 0 || undefined, 20_000, 'the watcher to follow the hub');
    // Two agents behind one NAT with the same skill: alice's own, ranked first for her, and bob's, shared.
    await startAgent('h1', 'home-one', 'NAT_ALICE');
    await startAgent('h2', 'home-two', 'NAT_BOB', ['--hub-shared']);
  }, 90_000);

  afterAll(async () => {
    await lab.remove();
    rmSync(root, { recursive: true, force: true });
    // One line for the record: the figures docs/hub.md quotes.
    process.stdout.write(`NAT report (ms): ${JSON.stringify(report)}\n`);
  }, 30_000);

  it('routes a send by skill to the home agents through the NAT, with no inbound connection', async () => {
    const sent = await client(['send', '--hub', hubUrl, '--skill', 'echo', 'echo baseline']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('home-one: baseline');
    report.liveSendMs = sent.ms;
    // Nothing on the public side can open a connection to a home host.
    expect(() => lab.in(lab.ns.pub, ['sh', '-c', `exec 3<>/dev/tcp/${lab.home.h1}/7400`])).toThrow();
  });

  it('finds an idle link whose mapping expired from both ends within seconds, and the agent is back', async () => {
    const t0 = Date.now();
    lab.expire('h1');
    const noticed = await until(() => agentNoticed('home-one', t0), DETECTION_MS + SLACK_MS + 4000, 'home-one to say it lost the hub');
    const back = await until(() => agentBack('home-one', t0), DETECTION_MS + SLACK_MS + 6000, 'home-one connected again');
    const hub = await until(() => hubLetGo('home-one', t0), DETECTION_MS + SLACK_MS + 6000, 'the hub to let go of the dead link');
    expect(noticed.line).toMatch(/noticed here: no answer to pings for [\d.]+ s \(a ping every 2 s, 2 missed\)/);
    expect(hub.reason).toMatch(/^the hub noticed: no answer to pings for [\d.]+ s \(a ping every 2 s, 2 missed\), at |^replaced/);
    Object.assign(report, { idleHubLetGoMs: hub.at - t0, idleAgentNoticedMs: noticed.at - t0, idleBackMs: back - t0 });
    expect(hub.at - t0).toBeLessThanOrEqual(DETECTION_MS + SLACK_MS);
    expect(back - t0).toBeLessThanOrEqual(DETECTION_MS + HEARTBEAT_MS + SLACK_MS);
    expect(noticed.at - t0).toBeLessThanOrEqual(DETECTION_MS + HEARTBEAT_MS + SLACK_MS);
    // The other agent behind the same NAT kept its own mapping, and its link.
    expect(health().some((h) => h.at >= t0 && h.agentId === 'home-two' && !h.up)).toBe(false);
    const again = await client(['send', '--hub', hubUrl, 'home-one', 'echo back']);
    expect(again.stdout).toContain('home-one: back');
  }, 60_000);

  it('finds a busy link whose mapping expired mid-stream, and the client still gets every step once', async () => {
    const sending = client(['send', '--hub', hubUrl, 'home-one', 'stream 40']);
    await until(() => (ranOf('stream 40').length > 0 ? true : undefined), 15_000, 'the stream under way');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const t0 = Date.now();
    lab.expire('h1');
    const noticed = await until(() => agentNoticed('home-one', t0), DETECTION_MS + SLACK_MS + 4000, 'home-one to say it lost the hub');
    const back = await until(() => agentBack('home-one', t0), DETECTION_MS + SLACK_MS + 6000, 'home-one connected again');
    const hub = await until(() => hubLetGo('home-one', t0), DETECTION_MS + SLACK_MS + 6000, 'the hub to let go of the dead link');
    Object.assign(report, { busyHubLetGoMs: hub.at - t0, busyAgentNoticedMs: noticed.at - t0, busyBackMs: back - t0 });
    expect(noticed.line).toMatch(/noticed here: (no answer to pings|write timeout)/);
    expect(hub.at - t0).toBeLessThanOrEqual(DETECTION_MS + SLACK_MS);
    expect(back - t0).toBeLessThanOrEqual(DETECTION_MS + HEARTBEAT_MS + SLACK_MS);
    expect(noticed.at - t0).toBeLessThanOrEqual(DETECTION_MS + HEARTBEAT_MS + SLACK_MS);
    const sent = await sending;
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('done after 40 steps');
    const steps = [...sent.stdout.matchAll(/step (\d+) of 40/g)].map((m) => Number(m[1]));
    expect(new Set(steps).size).toBe(steps.length);
    expect(ranOf('stream 40')).toHaveLength(1);
  }, 90_000);

  it('gives a send routed to a link that has just died to the other agent with the skill, at once', async () => {
    const t0 = Date.now();
    lab.expire('h1');
    // The hub has not noticed yet: it still ranks home-one first for alice.
    const sent = await client(['send', '--hub', hubUrl, '--skill', 'echo', 'echo failover']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout, sent.stderr).toContain('home-two: failover');
    expect(sent.stderr).toMatch(/home-one did not take the task \(.*agent home-one is unavailable: its link to the hub was silent .* the request was not sent to it/);
    report.failoverSendMs = sent.ms;
    report.failoverExtraMs = sent.ms - (report.liveSendMs ?? 0);
    expect(sent.ms - (report.liveSendMs ?? 0)).toBeLessThanOrEqual(2000 + SLACK_MS);
    // The dead link stops being routed to once the hub has let go of it.
    const hub = await until(() => hubLetGo('home-one', t0), DETECTION_MS + SLACK_MS + 6000, 'the hub to let go of the dead link');
    report.deadUnroutedMs = hub.at - t0;
    expect(hub.at - t0).toBeLessThanOrEqual(DETECTION_MS + SLACK_MS);
    expect(ranOf('failover')).toEqual(['home-two echo failover']);
    await until(() => agentBack('home-one', t0), DETECTION_MS + SLACK_MS + 6000, 'home-one connected again');
  }, 60_000);

  it('answers "agent unavailable" at once when the router is cut and no agent with the skill is left', async () => {
    const t0 = Date.now();
    lab.cut();
    const sent = await client(['send', '--hub', hubUrl, '--skill', 'echo', 'echo nobody']);
    report.cutFailMs = sent.ms;
    expect(sent.code).not.toBe(0);
    expect(sent.stderr, String(sent.ms)).toMatch(/is unavailable: its link to the hub was silent/);
    expect(sent.ms - (report.liveSendMs ?? 0)).toBeLessThanOrEqual(5000 + SLACK_MS);
    for (const id of ['home-one', 'home-two']) {
      const down = await until(() => firstAfter(t0, id, false), DETECTION_MS + SLACK_MS + 4000, `the hub to mark ${id} down`);
      report[`cut${id === 'home-one' ? 'One' : 'Two'}NoticedMs`] = down.at - t0;
    }
    lab.restore();
    expect(ranOf('nobody')).toEqual([]);
    // Nothing any client sent ran twice.
    const lines = readFileSync(runs, 'utf8').split('\n').filter((line) => line !== '');
    expect(new Set(lines).size).toBe(lines.length);
  }, 60_000);
});
