// The hub across a real NAT (test/fixtures/nat-lab.ts): the hub and a client on the public side,
// two agents on home hosts behind one masquerading router that lets nothing in. Mappings expire
// while an agent is idle and while it streams, a send is routed to a link that has just died,
// and the router is cut. Each case asserts the mechanism, in the order it must happen: the link
// declared dead by its missed pings (both ends say how many, and over how long a silence), the
// agent dialling again, the hub routing to it again, every request run once and answered with
// the A2A-Lite-Delivery its fate calls for. How long each step took is measured and reported
// (a test annotation, and one report line that docs/hub.md quotes), never asserted: a busy
// machine may be slow, not wrong. The hub runs with its defaults: a ping once a link is silent
// for 2 s, dead after 2 missed (4 s), a write unacknowledged for 3 s.
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
/** The hub's defaults (relay.ts), which both ends of a link agree on. */
const HEARTBEAT_MS = 2000;
const MISSED = 2;
/**
 * How long a wait goes on before the test gives up on a step that never comes: bounds on the
 * waits, far past what the steps take (a few seconds), not a limit asserted on them.
 */
const GIVE_UP_MS = 30_000;
/** What a watch says when a link missed its pings: the silence, the heartbeat and the budget. */
const MISSED_PINGS = /no answer to pings for ([\d.]+) s \(a ping every ([\d.]+) s, (\d+) missed\)/;

/**
 * Checks that `words` say the link was declared dead by the missed-ping budget: the heartbeat
 * and the count agreed on, and a silence of at least that many heartbeats (never sooner).
 */
function expectMissedPings(words: string): void {
  const said = MISSED_PINGS.exec(words);
  expect(said, words).not.toBeNull();
  const [, silence, every, missed] = said as RegExpExecArray;
  expect(Number(every) * 1000).toBe(HEARTBEAT_MS);
  expect(Number(missed)).toBe(MISSED);
  expect(Number(silence) * 1000).toBeGreaterThanOrEqual(HEARTBEAT_MS * MISSED);
}

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
  /**
   * The agent's line saying that it lost the hub, at or after `since` by the time it gives (its
   * own clock, the same machine's), with its place among the agent's lines.
   */
  const agentNoticed = (agentId: string, since: number): { at: number; line: string; index: number } | undefined => {
    const lines = agents[agentId]?.err.lines ?? [];
    for (const [index, { text }] of lines.entries()) {
      const said = /lost the hub .*, at (\S+); /.exec(text);
      if (said !== null && Date.parse(said[1] as string) >= since) return { at: Date.parse(said[1] as string), line: text, index };
    }
    return undefined;
  };
  const ranOf = (text: string): string[] => readFileSync(runs, 'utf8').split('\n').filter((line) => line.endsWith(` ${text}`));
  /** The agent's line saying it is connected (routed) again, read after `since`, and its place among its lines. */
  const agentBack = (agentId: string, since: number): { at: number; index: number } | undefined => {
    const index = agents[agentId]?.err.lines.findIndex((l) => l.at >= since && /^a2a-lite serve: connected to the hub /.test(l.text)) ?? -1;
    return index === -1 ? undefined : { at: (agents[agentId] as { err: Lines }).err.lines[index]!.at, index };
  };
  /**
   * When the hub let go of the agent's dead link after `since`: its down event, or, when the agent
   * noticed first and dialled again, the new link that took its place (the agent never went down).
   */
  const hubLetGo = (agentId: string, since: number): { at: number; reason: string; down: boolean } | undefined => {
    const down = firstAfter(since, agentId, false);
    if (down !== undefined) return { at: down.at, reason: down.reason ?? '', down: true };
    const back = agentBack(agentId, since);
    return back === undefined ? undefined : { at: back.at, reason: 'replaced by the agent\'s new link', down: false };
  };
  /** True once the hub's feed says the agent is up after any down it said after `since`: it is routed to again. */
  const hubRoutes = (agentId: string, since: number): true | undefined => {
    const events = health().filter((h) => h.at >= since && h.agentId === agentId);
    const down = events.findIndex((h) => !h.up);
    return down === -1 || events.slice(down).some((h) => h.up) ? true : undefined;
  };
  /** A JSON POST to the hub from the watcher, already running on the public side: no process to start. */
  const post = async (tag: string, path: string, body: unknown): Promise<{ at: number; status: number; delivery: string | null; body: { error?: { message?: string; delivery?: string } } }> => {
    watch.child.stdin?.write(`${JSON.stringify({ tag, post: path, body })}\n`);
    return until(() => watch.lines.map((l) => JSON.parse(l.text) as { tag?: string }).find((v) => v.tag === tag) as Awaited<ReturnType<typeof post>> | undefined, GIVE_UP_MS, `the hub's answer to ${tag}`);
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

  it('routes a send by skill to the home agents through the NAT, with no inbound connection', async ({ annotate }) => {
    const sent = await client(['send', '--hub', hubUrl, '--skill', 'echo', 'echo baseline']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('home-one: baseline');
    expect(ranOf('baseline')).toEqual(['home-one echo baseline']);
    report.liveSendMs = sent.ms;
    await annotate(`a routed send on live links: ${sent.ms} ms, client start to exit`);
    // Nothing on the public side can open a connection to a home host.
    expect(() => lab.in(lab.ns.pub, ['sh', '-c', `exec 3<>/dev/tcp/${lab.home.h1}/7400`])).toThrow();
  });

  it('finds an idle link whose mapping expired from both ends by its missed pings, and the agent dials again and is routed to', async ({ annotate }) => {
    const t0 = Date.now();
    lab.expire('h1');
    const noticed = await until(() => agentNoticed('home-one', t0), GIVE_UP_MS, 'home-one to say it lost the hub');
    const back = await until(() => agentBack('home-one', t0), GIVE_UP_MS, 'home-one connected again');
    const hub = await until(() => hubLetGo('home-one', t0), GIVE_UP_MS, 'the hub to let go of the dead link');
    await until(() => hubRoutes('home-one', t0), GIVE_UP_MS, 'the hub to route to home-one again');
    // Both ends found it dead by the missed-ping budget: nothing told them (no FIN, no RST).
    expect(noticed.line).toMatch(/noticed here: no answer to pings/);
    expectMissedPings(noticed.line);
    if (hub.down) {
      expect(hub.reason).toMatch(/^the hub noticed: no answer to pings .*, at /);
      expectMissedPings(hub.reason);
    } else expect(hub.reason).toMatch(/^replaced/);
    // In order: the agent noticed, then dialled again.
    expect(back.index).toBeGreaterThan(noticed.index);
    // The other agent behind the same NAT kept its own mapping, and its link.
    expect(health().some((h) => h.at >= t0 && h.agentId === 'home-two' && !h.up)).toBe(false);
    // Routed to again: a send by name reaches home-one, and runs there once.
    const again = await client(['send', '--hub', hubUrl, 'home-one', 'echo back']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('home-one: back');
    expect(ranOf('back')).toEqual(['home-one echo back']);
    Object.assign(report, { idleHubLetGoMs: hub.at - t0, idleAgentNoticedMs: noticed.at - t0, idleBackMs: back.at - t0 });
    await annotate(`idle, from the mapping's expiry: the agent noticed ${noticed.at - t0} ms, the hub let go ${hub.at - t0} ms (${hub.down ? 'down' : 'replaced'}), the agent back ${back.at - t0} ms`);
  }, 120_000);

  it('finds a busy link whose mapping expired mid-stream, and the client still gets every step once', async ({ annotate }) => {
    const sending = client(['send', '--hub', hubUrl, 'home-one', 'stream 40']);
    await until(() => (ranOf('stream 40').length > 0 ? true : undefined), GIVE_UP_MS, 'the stream under way');
    // Into the stream (its steps are 200 ms apart), so that the link is busy when it dies.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const t0 = Date.now();
    lab.expire('h1');
    const noticed = await until(() => agentNoticed('home-one', t0), GIVE_UP_MS, 'home-one to say it lost the hub');
    const back = await until(() => agentBack('home-one', t0), GIVE_UP_MS, 'home-one connected again');
    const hub = await until(() => hubLetGo('home-one', t0), GIVE_UP_MS, 'the hub to let go of the dead link');
    // Busy, the agent may find it by the pong that does not follow what it wrote, or by the missed pings.
    expect(noticed.line).toMatch(/noticed here: (no answer to pings|write timeout: what was sent was not acknowledged within 3 s)/);
    if (/no answer to pings/.test(noticed.line)) expectMissedPings(noticed.line);
    if (hub.down) expect(hub.reason).toMatch(/^the hub noticed: (no answer to pings|write timeout)/);
    expect(back.index).toBeGreaterThan(noticed.index);
    const sent = await sending;
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('done after 40 steps');
    const steps = [...sent.stdout.matchAll(/step (\d+) of 40/g)].map((m) => Number(m[1]));
    expect(new Set(steps).size).toBe(steps.length);
    // The task ran once: the client followed it again over the new link, it was not sent twice.
    expect(ranOf('stream 40')).toHaveLength(1);
    Object.assign(report, { busyHubLetGoMs: hub.at - t0, busyAgentNoticedMs: noticed.at - t0, busyBackMs: back.at - t0 });
    await annotate(`busy, from the mapping's expiry: the agent noticed ${noticed.at - t0} ms (${/write timeout/.test(noticed.line) ? 'write timeout' : 'missed pings'}), the hub let go ${hub.at - t0} ms, the agent back ${back.at - t0} ms`);
  }, 120_000);

  it('answers a send for a link that has just died "none" unsent, and the client gives it to the other agent with the skill', async ({ annotate }) => {
    const t0 = Date.now();
    lab.expire('h1');
    // The hub has not noticed yet: it still ranks home-one first for alice. Straight to home-one
    // (from the watcher) and by skill (the client), side by side. The direct one waits until the
    // link has been silent for longer than the hub sends down unasked (two round trips, 100 ms
    // at least): nothing comes through a dead mapping, so half a second after it went the hub
    // must ping first. (Sooner, it would send the request down and answer 502, delivery unknown.)
    const message = { message: { messageId: 'm-nat-direct', role: 'ROLE_USER', parts: [{ text: 'echo direct' }] } };
    const straight = new Promise((resolve) => setTimeout(resolve, 500)).then(() => post('direct', '/agents/home-one/message:send', message));
    const [direct, sent] = await Promise.all([straight, client(['send', '--hub', hubUrl, '--skill', 'echo', 'echo failover'])]);
    // Pinged first, no pong: answered 503 without sending anything, and the header says so.
    expect(direct.status, JSON.stringify(direct.body)).toBe(503);
    expect(direct.delivery).toBe('none');
    expect(direct.body.error?.delivery).toBe('none');
    expect(direct.body.error?.message).toMatch(/^agent home-one is unavailable: its link to the hub was silent for [\d.]+ s and did not answer a ping within \d+ ms; the request was not sent to it$/);
    // The client heard "none" from home-one and moved on to home-two, which ran it once.
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout, sent.stderr).toContain('home-two: failover');
    expect(sent.stderr).toMatch(/home-one did not take the task \(.*agent home-one is unavailable: its link to the hub was silent .* the request was not sent to it/);
    // The dead link stops being routed to once the hub has let go of it; the agent comes back.
    const hub = await until(() => hubLetGo('home-one', t0), GIVE_UP_MS, 'the hub to let go of the dead link');
    const back = await until(() => agentBack('home-one', t0), GIVE_UP_MS, 'home-one connected again');
    expect(ranOf('failover')).toEqual(['home-two echo failover']);
    expect(ranOf('direct')).toEqual([]);
    Object.assign(report, { failoverSendMs: sent.ms, failoverExtraMs: sent.ms - (report.liveSendMs ?? 0), failoverDirectMs: direct.at - t0, deadUnroutedMs: hub.at - t0 });
    await annotate(`a send to a just-dead link: answered "none" ${direct.at - t0} ms after the expiry; by skill, home-two answered in ${sent.ms} ms (${sent.ms - (report.liveSendMs ?? 0)} ms over live links); the hub let go ${hub.at - t0} ms, the agent back ${back.at - t0} ms`);
  }, 120_000);

  it('answers "agent unavailable" unsent when the router is cut and no agent with the skill is left', async ({ annotate }) => {
    const t0 = Date.now();
    lab.cut();
    const sent = await client(['send', '--hub', hubUrl, '--skill', 'echo', 'echo nobody']);
    expect(sent.code).not.toBe(0);
    // Each agent pinged and not waited for: the hub's words, not a timeout of the client's.
    expect(sent.stderr, String(sent.ms)).toMatch(/is unavailable: its link to the hub was silent .* did not answer a ping within \d+ ms; the request was not sent to it/);
    const noticed: Record<string, number> = {};
    for (const id of ['home-one', 'home-two']) {
      const down = await until(() => firstAfter(t0, id, false), GIVE_UP_MS, `the hub to mark ${id} down`);
      expect(down.reason).toMatch(/^the hub noticed: no answer to pings/);
      expectMissedPings(down.reason ?? '');
      noticed[id] = down.at - t0;
    }
    lab.restore();
    expect(ranOf('nobody')).toEqual([]);
    // Nothing any client sent ran twice.
    const lines = readFileSync(runs, 'utf8').split('\n').filter((line) => line !== '');
    expect(new Set(lines).size).toBe(lines.length);
    Object.assign(report, { cutFailMs: sent.ms, cutOneNoticedMs: noticed['home-one'] ?? -1, cutTwoNoticedMs: noticed['home-two'] ?? -1 });
    await annotate(`router cut: the send failed in ${sent.ms} ms; the hub marked home-one down ${noticed['home-one']} ms and home-two ${noticed['home-two']} ms after the cut`);
  }, 120_000);
});
