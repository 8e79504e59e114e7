// `a2a-lite demo` over real HTTP: 佳佳 and Mexico each run `a2a-lite serve` on a loopback port
// with a small deterministic program (src/cli/demo/) and a SQLite home of their own. The demo asks
// 佳佳 for a research report; 佳佳's program writes it, discovers Mexico and has it e-mail the
// report (with `a2a-lite discover` and `a2a-lite send`); the report comes back as a file. Then a
// plan sends it to three people at once through Mexico (demo-plan.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { jiajiaCard, mexicoCard } from '../../card/examples.js';
import type { LiteCard } from '../../card/types.js';
import { assertCard } from '../../card/validate.js';
import { render } from '../../card/render.js';
import { cacheDiscovered, fetchAgentCard } from '../../client/discover.js';
import { sendTask } from '../../client/send-task.js';
import { LiteError } from '../../errors.js';
import { format } from '../../protocol/format.js';
import { writeFileAtomic } from '../../home/atomic-file.js';
import { homePaths } from '../../home/home.js';
import type { TaskRecord } from '../../home/task-record.js';
import type { Context } from '../context.js';
import { printLine } from '../output.js';
import { RemoteOutput } from '../remote-output.js';
import { openStores } from '../stores.js';
import { playPlan } from './demo-plan.js';

const CLI = fileURLToPath(new URL('../bin.js', import.meta.url));
const HANDLERS = fileURLToPath(new URL('../demo/', import.meta.url));

interface Served {
  id: string;
  url: string;
  home: string;
  child: ChildProcess;
}

export interface HttpDemoReport {
  agents: Record<string, { url: string; home: string }>;
  /** The task the demo gave 佳佳, as the demo's own ledger has it. */
  research: TaskRecord;
  /** The task 佳佳 gave Mexico, as 佳佳's ledger has it. */
  email: TaskRecord;
  files: string[];
  /** The plan the demo ran last. */
  plan: { run: string; state: string; output: string };
}

/** Plays the example over HTTP in `root`; every server is stopped before it returns. */
export async function playOverHttp(root: string, context: Context, json: boolean): Promise<HttpDemoReport> {
  const say = (line = ''): void => {
    if (!json) printLine(context, line);
  };
  const heading = (text: string): void => say(`── ${text} ${'─'.repeat(Math.max(4, 56 - text.length))}`);
  const served: Served[] = [];
  try {
    say('A2A-Lite demo over HTTP: 佳佳 (Clawdbot) and Mexico (OpenClaw) each run `a2a-lite serve`');
    say('on a loopback port with a small program and a SQLite home of their own.');
    say();
    const mexico = await serve(root, mexicoCard(), 'mexico-handler.js', {});
    served.push(mexico);
    const jiajia = await serve(root, jiajiaCard(), 'jiajia-handler.js', { A2A_DEMO_PEER_URL: mexico.url });
    served.push(jiajia);
    say(`  Mexico  ${mexico.url}   (email, calendar)`);
    say(`  佳佳    ${jiajia.url}   (research, podcast-script)`);
    say();

    // The person's own home: where the demo keeps its ledger, known agents and downloads.
    const mine = join(root, 'you');
    mkdirSync(mine, { recursive: true });
    const stores = openStores({ home: mine }, context);

    heading('you discover 佳佳 (GET /.well-known/agent-card.json)');
    const found = await fetchAgentCard(jiajia.url);
    const { agent } = cacheDiscovered(stores.agents, found);
    say(render(agent.card, 'zh'));
    say();

    heading('you → 佳佳: a research task (SendStreamingMessage)');
    const text = '请调研 AI 代理之间如何协作，写一份简短的报告，然后请能发邮件的同伴把报告发给鲁伊科斯塔。';
    say(format({ type: 'task', params: { id: '…', skill: 'research' }, body: text, attachments: [] }));
    say();
    heading('佳佳 → you: every event of the task, as A2A-Lite');
    const output = new RemoteOutput(quietNotes(context, json), json);
    const result = await sendTask(
      stores,
      { target: agent.card.agent.id, skill: 'research', text, waitMs: 60_000, cwd: root, env: context.env },
      { onEvent: (event, _task, taken) => output.show(event, taken) },
    );
    if (result.task === undefined || result.state !== 'completed') {
      throw new LiteError('INTERNAL', `the research task did not complete: ${result.state ?? 'a message came back'}`);
    }
    const files = result.files.flatMap((f) => (f.path === undefined ? [] : [f.path]));
    say();

    // What 佳佳 did on its side: its own ledger holds the task it gave Mexico.
    const jiajiaLedger = openStores({ home: jiajia.home }, context).tasks;
    const email = jiajiaLedger.list().find((t) => t.peer === 'mexico' && t.role === 'requester');
    if (email === undefined) throw new LiteError('INTERNAL', '佳佳 recorded no task for Mexico');
    const emailRecord = jiajiaLedger.get(email.id, 'mexico');
    heading('佳佳 ↔ Mexico, from 佳佳’s ledger (its own a2a-lite send)');
    for (const entry of emailRecord.history) {
      say(`${entry.direction === 'out' ? '佳佳 → Mexico' : 'Mexico → 佳佳'}:`);
      const params = { ...entry.params };
      say(format({ type: entry.type, params, body: entry.body, attachments: entry.attachments }));
      say();
    }
    if (emailRecord.state !== 'completed') throw new LiteError('INTERNAL', `Mexico's task ended ${emailRecord.state}`);

    heading('you run a plan: the report to three people at once, then a confirmation');
    const report = files.find((f) => f.endsWith('report.md'));
    if (report === undefined) throw new LiteError('INTERNAL', '佳佳 sent no report.md');
    const plan = await playPlan(stores, root, report, mexico.url, context, json, say);
    say();

    const research = stores.tasks.get(result.task.id, result.peer.id);
    heading('at the end');
    say(`  your ledger:  ${research.id}  asked ${research.peer}  ${research.state}  (${research.history.length} messages)`);
    say(`  佳佳's ledger: ${emailRecord.id}  asked ${emailRecord.peer}  ${emailRecord.state}  (${emailRecord.history.length} messages)`);
    say(`  your plan:    run ${plan.id} ${plan.state}  (a2a-lite runs show ${plan.id})`);
    for (const file of files) say(`  downloaded:   ${file} (${readFileSync(file).length} bytes)`);
    return {
      agents: Object.fromEntries(served.map((s) => [s.id, { url: s.url, home: s.home }])),
      research,
      email: emailRecord,
      files,
      plan: { run: plan.id, state: plan.state, output: plan.output?.text ?? '' },
    };
  } finally {
    await Promise.all(served.map((s) => stop(s.child)));
  }
}

/** Starts `a2a-lite serve` for `card` with its demo program, and waits until it listens. */
async function serve(root: string, card: LiteCard, program: string, env: Record<string, string>): Promise<Served> {
  const home = join(root, card.agent.id);
  mkdirSync(home, { recursive: true });
  writeFileAtomic(homePaths(home).card, `${JSON.stringify(assertCard(card), null, 2)}\n`);
  const exec = `${quote(process.execPath)} ${quote(join(HANDLERS, program))}`;
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--exec', exec, '--json', '--timeout', '60'], {
    env: { ...process.env, ...env, A2A_LITE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new LiteError('INTERNAL', `${card.agent.id}'s server ${why}: ${stderr}`));
    };
    const timer = setTimeout(() => fail('did not start within 15 s'), 15_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { url: string }).url);
      } catch {
        fail(`printed ${JSON.stringify(line.slice(0, 80))} where it says where it listens`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new LiteError('INTERNAL', `${card.agent.id}'s server exited with ${code}: ${stderr}`));
    });
  });
  return { id: card.agent.id, url, home, child };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function quote(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/** With --json the report is the only output: the events and notes go nowhere. */
function quietNotes(context: Context, json: boolean): Context {
  if (!json) return context;
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  return { ...context, stdout: sink, stderr: sink };
}
