// `a2a-lite discover`, `send` and `tasks get|cancel` as an agent's shell runs them: the built
// binary as a child process, against real servers on 127.0.0.1 (ours and the official SDK's).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, tempHome } from '../fixtures/home.js';
import { startLitePeer, type LitePeer } from '../client/lite-peer.js';
import { startSdkPeer, type SdkPeer } from '../interop/peers/sdk-peer.js';
import { cliAsync, cliInterrupted, type CliOptions } from './run-cli.js';

let lite: LitePeer;
let guarded: LitePeer;
let sdk1: SdkPeer;
let sdk03: SdkPeer;
const TOKEN = 'cli-test-token-5f1d0c9a7e3b';

beforeAll(async () => {
  [lite, guarded, sdk1, sdk03] = await Promise.all([startLitePeer(), startLitePeer({ token: TOKEN }), startSdkPeer({ version: '1.0' }), startSdkPeer({ version: '0.3' })]);
});

afterAll(async () => {
  await Promise.all([lite?.close(), guarded?.close(), sdk1?.close(), sdk03?.close()]);
});

const run = (args: string[], options: CliOptions = {}) => cliAsync(args, options);
const taskIdIn = (text: string): string => /task=([0-9a-zA-Z-]+)/.exec(text)?.[1] ?? '';

describe('a2a-lite discover', () => {
  it('caches an a2a-lite agent under its own id, with channel a2a:URL, and prints the card reply', async () => {
    const home = tempHome();
    const { code, stdout, stderr } = await run(['discover', lite.url], { home });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^\[A2A:card id=jiajia\]/);
    expect(stdout).toContain(`a2a:${lite.url}`);
    expect(stderr).toContain('cached jiajia');
    const cached = JSON.parse(readFileSync(join(home, 'known-agents', 'jiajia.json'), 'utf8'));
    expect(cached.channels).toEqual([`a2a:${lite.url}`]);
    expect(cached['x-a2a-lite'].a2a.interfaces[0]).toEqual({ url: `${lite.url}/jsonrpc`, binding: 'JSONRPC', version: '1.0' });
    const again = await run(['discover', lite.url], { home });
    expect(again.stderr).toContain('updated jiajia');
  });

  it('reads 1.0 and 0.3 cards of the official SDK, keeping two agents of one name apart', async () => {
    const home = tempHome();
    const first = await run(['discover', sdk1.url, '--json'], { home });
    expect(first.code, first.stderr).toBe(0);
    const one = JSON.parse(first.stdout);
    expect(one.id).toBe('sdk-peer');
    expect(one.a2a.interfaces.map((i: { binding: string; version: string }) => `${i.binding} ${i.version}`)).toEqual(['JSONRPC 1.0', 'HTTP+JSON 1.0']);
    const second = JSON.parse((await run(['discover', sdk03.url, '--json'], { home })).stdout);
    expect(second.id).not.toBe('sdk-peer');
    expect(second.a2a.interfaces).toEqual([{ url: `${sdk03.url}/a2a/jsonrpc`, binding: 'JSONRPC', version: '0.3' }]);
    expect(readdirSync(join(home, 'known-agents')).sort()).toEqual([`${second.id}.json`, 'sdk-peer.json'].sort());
  });

  it.each([
    ['not a URL', ['discover', 'mexico'], 2, /is not a URL/],
    ['nothing listening', ['discover', 'http://127.0.0.1:9'], 15, /could not reach/],
    ['no card there', ['discover', 'http://127.0.0.1:PORT/missing-card.json'], 8, /no agent card at/],
  ])('answers %s with a clear error and its exit code', async (_what, args, exit, message) => {
    const home = tempHome();
    const { code, stderr } = await run(args.map((a) => a.replace('http://127.0.0.1:PORT', sdk1.url)), { home });
    expect(code).toBe(exit);
    expect(stderr).toMatch(message);
  });
});

describe('a2a-lite send', () => {
  it('streams a task and prints each event as A2A-Lite, records it, and exits 0', async () => {
    const home = tempHome();
    const { code, stdout, stderr } = await run(['send', lite.url, 'echo 你好', '--skill', 'echo'], { home });
    expect(code, stderr).toBe(0);
    const id = taskIdIn(stdout);
    expect(stdout).toContain(`[A2A:status task=${id} state=working]\nworking on it`);
    expect(stdout).toContain(`[A2A:result task=${id} state=completed]\necho: 你好`);
    const list = await run(['tasks', 'show', id, '--json'], { home });
    const record = JSON.parse(list.stdout);
    expect(record).toMatchObject({ id, peer: 'jiajia', role: 'requester', skill: 'echo', state: 'completed', result: { text: 'echo: 你好' } });
    expect(record.history.map((h: { type: string; direction: string }) => `${h.direction}:${h.type}`)).toEqual(['out:task', 'in:status', 'in:status', 'in:result']);
  });

  it('with --no-stream prints only the result; with --json one line per event and a summary', async () => {
    const home = tempHome();
    const quiet = await run(['send', lite.url, 'echo once', '--no-stream'], { home });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout.trim().split('\n')).toEqual([`[A2A:result task=${taskIdIn(quiet.stdout)} state=completed]`, 'echo: once']);
    const json = await run(['send', lite.url, 'echo lines', '--json'], { home });
    const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ outcome: 'completed', peer: 'jiajia' });
    expect(lines.filter((l) => l.kind === 'status').map((l) => l.status.state)).toEqual(['working', 'completed']);
  });

  it('exits with the code of each outcome: 10 failed, 11 rejected, 13 input required, 14 auth required', async () => {
    const home = tempHome();
    const failed = await run(['send', lite.url, 'fail out of paper'], { home });
    expect(failed.code).toBe(10);
    expect(failed.stdout).toContain('state=failed]\nout of paper');
    expect((await run(['send', lite.url, 'reject'], { home })).code).toBe(11);
    const asked = await run(['send', lite.url, 'ask 发给谁？'], { home });
    expect(asked.code).toBe(13);
    expect(asked.stdout).toContain('state=input-required]\n发给谁？');
    expect(asked.stderr).toContain('a2a-lite send --reply TEXT --task');
    const auth = await run(['send', lite.url, 'auth'], { home });
    expect(auth.code).toBe(14);
    expect(auth.stdout).toContain('state=auth-required]\nlog in first');
    await run(['tasks', 'cancel', taskIdIn(auth.stdout)], { home });
  });

  it('continues a task that asked for input with --reply, in the same task and context', async () => {
    const home = tempHome();
    const asked = await run(['send', sdk1.url, 'ask Who gets it?'], { home });
    expect(asked.code).toBe(13);
    const id = taskIdIn(asked.stdout);
    const answered = await run(['send', '--reply', 'Rui Costa'], { home });
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`[A2A:result task=${id} state=completed]\ngot: Rui Costa`);
    const record = JSON.parse((await run(['tasks', 'show', id, '--json'], { home })).stdout);
    expect(record.state).toBe('completed');
    // The reply is on the record, as the requester's task message on the same id.
    expect(record.history.map((h: { direction: string; type: string; body: string }) => `${h.direction}:${h.type}:${h.body}`)).toContain('out:task:Rui Costa');
    const sent = sdk1.received.at(-1) as { taskId?: string; contextId?: string };
    expect(sent.taskId).toBe(id);
    expect(sent.contextId).toBe(record.history[0].params.context);
  });

  it('reads the A2A-Lite header of an agent that ends every answer as completed: a question is exit 13, and the reply goes on in its context', async () => {
    const home = tempHome();
    const asked = await run(['send', lite.url, 'lite ask'], { home });
    const id = taskIdIn(asked.stdout);
    expect(asked.code, asked.stderr).toBe(13);
    expect(asked.stdout.endsWith(`[A2A:status task=${id} state=input-required]\nWhich week, this one or the last?\n`)).toBe(true);
    expect(asked.stdout).not.toContain('completed');
    expect(JSON.parse((await run(['tasks', 'show', id, '--json'], { home })).stdout).state).toBe('input-required');
    const json = await run(['send', lite.url, 'lite ask', '--json'], { home });
    expect(JSON.parse(json.stdout.trim().split('\n').at(-1) as string).outcome).toBe('input-required');

    const answered = await run(['send', '--reply', 'echo the last one', '--task', id], { home });
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).toContain(`the agent ended task ${id} when it asked; sending the reply in its context instead`);
    expect(answered.stdout).toContain('echo: the last one');
    const reply = lite.received.at(-1) as { taskId?: string; contextId?: string; referenceTaskIds?: string[] };
    expect(reply.referenceTaskIds).toEqual([id]);
    expect(reply.contextId).toBe(JSON.parse((await run(['tasks', 'show', id, '--json'], { home })).stdout).history[0].params.context);
  });

  it('shows the progress and the result an A2A-Lite agent writes in its words, under the A2A task id', async () => {
    const home = tempHome();
    const done = await run(['send', lite.url, 'lite work'], { home });
    const id = taskIdIn(done.stdout);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`[A2A:status task=${id} state=working progress=40%]\ncollecting sources`);
    expect(done.stdout).toContain(`[A2A:result task=${id} state=completed]\nThe report is done.`);
    expect(done.stdout).not.toContain('\\[A2A:');
  });

  it('saves returned files under downloads/<task>/ and sends attached ones', async () => {
    const home = tempHome();
    const work = tempHome('work');
    const got = await run(['send', sdk03.url, 'file'], { home });
    expect(got.code, got.stderr).toBe(0);
    const id = taskIdIn(got.stdout);
    expect(got.stdout).toContain('here is the report\n[附件: report.md]');
    expect(readFileSync(join(home, 'downloads', id, 'report.md'), 'utf8')).toBe('# Report\n\nAgents talk.\n');
    expect(statSync(join(home, 'downloads', id, 'report.md')).mode & 0o077).toBe(0);
    writeFileSync(join(work, 'a.txt'), 'hello');
    writeFileSync(join(work, 'b.bin'), Buffer.from([0, 1, 2]));
    const sent = await run(['send', sdk1.url, 'files-in', '--attach', 'a.txt', '--attach', 'b.bin'], { home, cwd: work });
    expect(sent.stdout).toContain('received: a.txt (5 bytes), b.bin (3 bytes)');
    const missing = await run(['send', sdk1.url, 'files-in', '--attach', 'nope.txt'], { home, cwd: work });
    expect(missing.code).toBe(4);
  });

  it('resumes a stream cut mid-task and prints the end', async () => {
    const home = tempHome();
    for (const url of [lite.url, sdk1.url]) {
      const { code, stdout, stderr } = await run(['send', url, 'cut 5'], { home });
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/subscribing again|polling/);
      expect(stdout).toContain('state=completed]\ndone after 5 steps');
    }
  });

  it('stops following at --timeout (exit 15); tasks get and cancel act on the remote task', async () => {
    const home = tempHome();
    const waited = await run(['send', lite.url, 'slow 40', '--timeout', '0.5'], { home });
    expect(waited.code).toBe(15);
    const id = taskIdIn(waited.stdout);
    expect(waited.stderr).toContain(`a2a-lite tasks get ${id}`);
    const now = await run(['tasks', 'get', id], { home });
    expect(now.code).toBe(0);
    expect(now.stdout).toContain(`[A2A:status task=${id} state=working]`);
    const cancelled = await run(['tasks', 'cancel', id], { home });
    expect(cancelled.code).toBe(12);
    expect(cancelled.stdout).toContain(`[A2A:result task=${id} state=cancelled]`);
    expect((await run(['tasks', 'get', id], { home })).code).toBe(12);
    expect(JSON.parse((await run(['tasks', 'show', id, '--json'], { home })).stdout).state).toBe('cancelled');
  });

  it('cancels the remote task on Ctrl-C and says so', async () => {
    const home = tempHome();
    const { code, stdout, stderr } = await cliInterrupted(['send', sdk1.url, 'slow 50'], 'step 1 of 50', { home });
    const id = taskIdIn(stdout);
    expect(code).toBe(12);
    expect(stderr).toContain(`interrupted: cancelling task ${id} at the agent`);
    expect(stdout).toContain(`[A2A:result task=${id} state=cancelled]`);
    expect(sdk1.cancelled).toContain(id);
  });

  it('chooses a known agent by skill, says why, and prefers the one that answered last', async () => {
    const home = tempHome();
    await run(['discover', sdk1.url], { home });
    await run(['discover', lite.url], { home });
    const chosen = await run(['send', '--skill', 'email', 'echo routed'], { home });
    expect(chosen.code, chosen.stderr).toBe(0);
    const first = /chose (\S+)/.exec(chosen.stderr)?.[1];
    expect(chosen.stderr).toMatch(/for "email": its skill "email"; it last answered at|for "email": its skill "email"; 1 other/);
    const other = first === 'jiajia' ? 'sdk-peer' : 'jiajia';
    await run(['send', other, 'echo direct'], { home });
    const again = await run(['send', '--skill', 'email', 'echo routed again'], { home });
    expect(/chose (\S+)/.exec(again.stderr)?.[1]).toBe(other);
    expect(again.stderr).toContain('it last answered at');
    const none = await run(['send', '--skill', 'teleport', 'x'], { home });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('no known A2A agent offers "teleport"');
  });

  it('takes the token from the variable --token-env names, and writes it nowhere', async () => {
    const home = tempHome();
    const refused = await run(['send', guarded.url, 'echo secret'], { home });
    expect(refused.code).toBe(14);
    expect(refused.stderr).toContain('--token-env');
    const unset = await run(['send', guarded.url, 'echo secret', '--token-env', 'NO_SUCH_VAR_A2A'], { home, env: { NO_SUCH_VAR_A2A: undefined } });
    expect(unset.code).toBe(2);
    const ok = await run(['discover', guarded.url, '--token-env', 'PEER_TOKEN'], { home });
    expect(ok.code).toBe(0);
    const sent = await run(['send', 'jiajia', 'echo secret'], { home, env: { PEER_TOKEN: TOKEN } });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('echo: secret');
    const wrong = await run(['send', 'jiajia', 'echo secret'], { home, env: { PEER_TOKEN: 'not-the-token' } });
    expect(wrong.code).toBe(14);
    for (const output of [refused, unset, ok, sent, wrong]) expect(output.stdout + output.stderr).not.toContain(TOKEN);
    for (const file of filesUnder(home)) expect(readFileSync(file, 'utf8'), file).not.toContain(TOKEN);
    expect(readFileSync(join(home, 'known-agents', 'jiajia.json'), 'utf8')).toContain('"tokenEnv": "PEER_TOKEN"');
  });

  it('with --idempotency-key, gets the first task back when the same command runs again', async () => {
    const home = tempHome();
    const send = async (key: string) => {
      const { code, stdout, stderr } = await run(['send', lite.url, 'echo keyed', '--no-stream', '--idempotency-key', key], { home });
      expect(code, stderr).toBe(0);
      return taskIdIn(stdout);
    };
    const first = await send('report-2026-11-23');
    expect(first).not.toBe('');
    expect(await send('report-2026-11-23')).toBe(first);
    expect(await send('report-2026-11-24')).not.toBe(first);
    const bad = await run(['send', lite.url, 'echo keyed', '--idempotency-key', 'has space'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--idempotency-key is 1 to 255 visible ASCII characters');
  });

  it('says what is wrong with the command line', async () => {
    const home = tempHome();
    expect((await run(['send'], { home })).code).toBe(2);
    const unknown = await run(['send', 'nobody', 'hi'], { home });
    expect(unknown.code).toBe(4);
    expect((await run(['send', 'http://127.0.0.1:9', 'hi'], { home })).code).toBe(15);
    expect((await run(['send', lite.url, 'hi', '--timeout', 'soon'], { home })).code).toBe(2);
    const noTask = await run(['send', '--reply', 'yes'], { home });
    expect(noTask.code).toBe(4);
    expect(noTask.stderr).toContain('no task sent from here is waiting for input');
  });
});
