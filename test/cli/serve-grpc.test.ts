// `a2a-lite serve --grpc-port` as a real process, and `send` / `tasks get|cancel` over gRPC with
// --transport: the card declares the gRPC port and credentials travel as metadata. That a run
// without --grpc-port never loads the gRPC library is grpc-lazy.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { BIN, cli } from './run-cli.js';

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

async function startServe(home: string, extra: string[], env: Record<string, string> = {}): Promise<Record<string, string>> {
  cli(['card', 'init', '--id', 'jiajia', '--name', 'Jiajia', '--skill', 'research:Research:collects sources'], { home });
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', '0', '--store', 'memory', '--exec', 'cat > /dev/null; echo "from the program"', '--json', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  running.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (output += chunk));
  for (let waited = 0; !output.includes('\n') && waited < 400; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return JSON.parse(output.split('\n')[0] as string) as Record<string, string>;
}

describe('a2a-lite serve --grpc-port', () => {
  it('declares the gRPC port in the card, and send and tasks get go over it with --transport grpc', async () => {
    const info = await startServe(tempHome(), ['--grpc-port', '0', '--auth-bearer-env', 'SERVE_TOKEN'], { SERVE_TOKEN: 'grpc-cli-token-0123456789' });
    expect(info.grpc).toMatch(/^127\.0\.0\.1:\d+$/);
    const card = (await (await fetch(info.card as string)).json()) as { supportedInterfaces: unknown[] };
    expect(card.supportedInterfaces).toContainEqual({ url: info.grpc, protocolBinding: 'GRPC', protocolVersion: '1.0' });
    const home = tempHome();
    const env = { CALLER_TOKEN: 'grpc-cli-token-0123456789' };
    const sent = cli(['send', info.url as string, 'hello over grpc', '--transport', 'grpc', '--token-env', 'CALLER_TOKEN', '--json'], { home, env });
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const task = JSON.parse(sent.stdout.trim().split('\n').at(-1) as string) as { task?: string; taskId?: string; id?: string };
    const id = task.task ?? task.taskId ?? task.id;
    expect(typeof id).toBe('string');
    const got = cli(['tasks', 'get', id as string, '--transport', 'grpc', '--token-env', 'CALLER_TOKEN'], { home, env });
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/from the program/);
    const refused = cli(['tasks', 'get', id as string, '--transport', 'grpc'], { home, env: { CALLER_TOKEN: 'not-the-token-0123456789' } });
    expect(refused.code).toBe(14);
    expect(refused.stderr).toMatch(/refused the credential \(gRPC UNAUTHENTICATED\)/);
  });

  it('refuses --transport values and gRPC flags that make no sense, naming them', async () => {
    expect(cli(['send', 'http://127.0.0.1:9/', 'x', '--transport', 'carrier-pigeon'], { home: tempHome() }).stderr).toMatch(/--transport is jsonrpc, rest, grpc/);
    const home = tempHome();
    cli(['card', 'init', '--id', 'a', '--name', 'A', '--skill', 's:S:d'], { home });
    const lone = cli(['serve', '--exec', 'true', '--grpc-host', '127.0.0.1'], { home });
    expect(lone.code).toBe(2);
    expect(lone.stderr).toMatch(/--grpc-host needs --grpc-port/);
    const half = cli(['serve', '--exec', 'true', '--grpc-port', '0', '--tls-cert', 'x.pem'], { home });
    expect(half.stderr).toMatch(/--tls-cert and --tls-key go together/);
  });
});
