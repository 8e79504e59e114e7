// Files a requester sends to `serve --exec`, through a real process: many parts of one name are
// each saved under a name of their own, at a cost that grows with their number, counted in the
// file-system calls the server makes (test/fixtures/count-fs.mjs), never timed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { BIN, cli } from './run-cli.js';

const COUNTER = fileURLToPath(new URL('../fixtures/count-fs.mjs', import.meta.url));
const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** `serve --exec` with its file-system calls under `<home>/work` counted into `<home>/counts.json`. */
async function startCounted(home: string, exec: string): Promise<{ child: ChildProcess; url: string; counts: () => Promise<Record<string, number>> }> {
  cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳', '--skill', 'research:调研助手:收集资料'], { home });
  const out = join(home, 'counts.json');
  const env = { ...process.env, COUNT_FS_UNDER: join(home, 'work'), COUNT_FS_OUT: out };
  const child = spawn(process.execPath, ['--import', COUNTER, BIN, 'serve', '--home', home, '--port', '0', '--store', 'memory', '--exec', exec, '--json'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  running.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (output += chunk));
  for (let waited = 0; !output.includes('\n') && waited < 400; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  const info = JSON.parse(output.split('\n')[0] as string) as { jsonrpc: string };
  return {
    child,
    url: info.jsonrpc,
    async counts() {
      child.kill('SIGTERM');
      await once(child, 'exit');
      return JSON.parse(readFileSync(out, 'utf8')) as Record<string, number>;
    },
  };
}

interface Answer {
  result?: { task: { id: string; status: { state: string; message?: { parts: { text?: string }[] } }; artifacts?: { parts: { text?: string }[] }[] } };
  error?: { code: number; message: string };
}

const send = (url: string, message: Record<string, unknown>): Promise<Answer> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', ...message } } }),
  }).then((r) => r.json() as Promise<Answer>);

/** `count` file parts, all named `report.txt`, each with its own contents `<label> <i>`. */
const files = (label: string, count: number) => Array.from({ length: count }, (_, i) => ({ raw: Buffer.from(`${label} ${i}`).toString('base64'), filename: 'report.txt' }));

// The program asks for more once (its question is in the transcript after), then says how many
// files its folder holds.
const PROGRAM = 'case "$(cat)" in *"the rest?"*) echo "files: $(ls | wc -l)" ;; *) printf "[A2A:status task=%s state=input-required]\\nthe rest?\\n" "$A2A_TASK_ID" ;; esac';

describe('serve --exec: files of one name', () => {
  it('saves 2,000 files named alike, in two turns, each under its own name, with one folder read per turn', async () => {
    const home = tempHome();
    const serve = await startCounted(home, PROGRAM);
    const first = await send(serve.url, { messageId: 'm1', parts: files('first', 1000) });
    expect(first.result?.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const id = first.result!.task.id;
    const second = await send(serve.url, { messageId: 'm2', taskId: id, parts: files('second', 1000) });
    expect(second.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(second.result?.task.artifacts?.[0]?.parts[0]?.text?.trim()).toMatch(/^files:\s+2000$/);

    const folder = join(home, 'work', id);
    const names = readdirSync(folder);
    expect(names).toHaveLength(2000);
    expect(names).toContain('report.txt');
    expect(names).toContain('report-1999.txt');
    // Nothing was overwritten: every part's contents is in a file of its own.
    const contents = new Set(names.map((name) => readFileSync(join(folder, name), 'utf8')));
    expect(contents.size).toBe(2000);

    // One write per file and a handful of other calls; probing name after name for each file
    // made about two million lstat calls here.
    const counts = await serve.counts();
    const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
    expect(counts.writeFileSync).toBe(2000);
    expect(counts.readdirSync ?? 0).toBeLessThanOrEqual(2);
    expect(total - 2000).toBeLessThan(20);
  });

  it('refuses a message of more than 1,000 parts, naming the limit, and saves nothing', async () => {
    const home = tempHome();
    const serve = await startCounted(home, PROGRAM);
    const answer = await send(serve.url, { messageId: 'm1', parts: [{ text: 'too many' }, ...files('part', 1000)] });
    expect(answer.error).toMatchObject({ code: -32602, message: 'a message may carry at most 1000 parts; this one has 1001' });
    const counts = await serve.counts();
    expect(counts).toEqual({});
  });
});
