// `a2a-lite serve` run for real, as an operator on a public host runs it: tokens in files,
// rotated with SIGHUP (the old token's stream ends, the new one works at once, an unreadable
// file keeps its token), the audit file moved away and reopened on SIGHUP (logrotate), and no
// token or message text in the trail. Start-up refuses a bad token file, naming it.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { agentHome, BEHAVE, until } from '../hub/hub-processes.js';
import { startServe } from '../faults/serve-process.js';
import { cli } from './run-cli.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const ALICE = ['file', 'alice', 'Vb62Rq'].join('-');
const ALICE_NEW = ['file', 'alice', 'Pz19Kd'].join('-');
const BOB = ['file', 'bob', 'Tn44Gs'].join('-');
const WORDS = 'meet me by the old mill at dawn';

const rpc = (url: string, token: string, method: string, params: unknown) =>
  fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
const message = (text: string) => ({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });

function tokenFile(dir: string, name: string, token: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, `${token}\n`);
  chmodSync(path, mode);
  return path;
}

const auditLines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, string>);

describe('serve refuses a bad token file or limit at start, naming what is wrong', () => {
  // One folder for every case, kept until the process ends (tempHome's are removed after each test).
  const dir = mkdtempSync(join(tmpdir(), 'a2a-lite-ops-start-'));
  mkdirSync(join(dir, 'folder'));
  writeFileSync(join(dir, 'empty'), '\n');
  writeFileSync(join(dir, 'huge'), 'x'.repeat(5000));
  writeFileSync(join(dir, 'good'), BOB);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it.each([
    [['--auth-bearer-file', `alice=${join(dir, 'missing')}`], /the token file .*missing \(--auth-bearer-file alice\) does not exist/],
    [['--auth-bearer-file', `alice=${join(dir, 'empty')}`], /the token file .*empty .* is empty/],
    [['--auth-bearer-file', `alice=${join(dir, 'folder')}`], /is a folder, not a file/],
    [['--auth-api-key-file', `alice=${join(dir, 'huge')}`], /is over 4096 bytes/],
    [['--auth-bearer-file', join(dir, 'good')], /takes NAME=PATH/],
    [['--auth-bearer-file', `=${join(dir, 'good')}`], /a principal's name/],
    [['--auth-bearer-file', `a=${join(dir, 'good')}`, '--auth-api-key-file', `a=${join(dir, 'good')}`], /a has two token files/],
    [['--auth-bearer-env', 'OPS_BOB', '--auth-bearer-file', `OPS_BOB=${join(dir, 'good')}`], /OPS_BOB is named by an environment variable and by --auth-bearer-file/],
    [['--auth-bearer-env', 'OPS_BOB', '--auth-bearer-file', `bob=${join(dir, 'good')}`], /the credentials of OPS_BOB and bob are the same secret/],
    [['--rate-limit', '5/s'], /--rate-limit limits each principal, and no token is set/],
    [['--address-rate-limit', '5/d'], /--address-rate-limit is a number of requests per second, minute or hour/],
    [['--address-rate-burst', '5'], /--address-rate-burst needs --address-rate-limit/],
    [['--max-streams-per-caller', '0'], /--max-streams-per-caller is a whole number from 1/],
    [['--audit', join(dir, 'folder')], /--audit .*folder: the file cannot be opened for appending \(EISDIR\)/],
  ])('%j', (flags, message) => {
    const result = cli(['serve', '--exec', 'true', '--port', '0', ...flags], { home: dir, env: { OPS_BOB: BOB } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain(BOB);
    expect(result.stderr).not.toContain('xxxx');
  });
});

describe('serve with token files and an audit file, on SIGHUP', () => {
  it('rotates a token, keeps one it cannot read, reopens a moved audit file, and writes no secret', async () => {
    const home = agentHome('ops-serve');
    const dir = tempHome('ops-files');
    const alice = tokenFile(dir, 'alice.token', ALICE);
    const bob = tokenFile(dir, 'bob.token', BOB, 0o644);
    const audit = join(dir, 'audit.log');
    const served = await startServe(home, BEHAVE, ['--auth-bearer-file', `alice=${alice}`, '--auth-bearer-file', `bob=${bob}`, '--audit', audit, '--max-streams-per-caller', '4']);
    const url = served.info.url;
    expect(served.stderr()).toMatch(/warning: the token file .*bob\.token \(bob\) is readable by its group or by others \(mode 0644\); chmod 600 it/);

    // Alice follows a long task; Bob's task carries words the trail must not hold.
    const stream = await rpc(url, ALICE, 'SendStreamingMessage', message('slow 300'));
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    expect((await rpc(url, BOB, 'SendMessage', message(`echo ${WORDS}`))).status).toBe(200);

    // Rotate Alice's token, and take Bob's file away: Bob keeps the token he had.
    tokenFile(dir, 'alice.token', ALICE_NEW);
    rmSync(bob);
    served.child.kill('SIGHUP');
    let events = 0;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      events += 1;
      expect(events).toBeLessThan(50);
    }
    expect((await rpc(url, ALICE, 'ListTasks', {})).status).toBe(401);
    expect((await rpc(url, ALICE_NEW, 'ListTasks', {})).status).toBe(200);
    expect((await rpc(url, BOB, 'ListTasks', {})).status).toBe(200);
    expect(served.stderr()).toMatch(/reading tokens again \(SIGHUP\): the token file .*bob\.token \(--auth-bearer-file bob\) does not exist; bob keeps the token it had/);
    expect(served.stderr()).toMatch(/tokens read again \(SIGHUP\): alice changed; 2 accepted/);

    // logrotate: move the file, then SIGHUP; what comes after goes to a new file at the path.
    renameSync(audit, `${audit}.1`);
    served.child.kill('SIGHUP');
    await until(() => (served.stderr().match(/tokens read again/g)?.length === 2 ? true : undefined), 10_000, 'the second SIGHUP');
    expect((await rpc(url, ALICE_NEW, 'SendMessage', message('echo after the move'))).status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);

    const before = auditLines(`${audit}.1`);
    const after = auditLines(audit);
    expect(before.map((line) => `${line.action} ${line.principal ?? ''} ${line.outcome} ${line.detail ?? ''}`.trim())).toEqual([
      'send alice ok',
      'send bob ok',
      'token-reload bob FILE_NOT_FOUND kept',
      'token-reload alice ok changed',
      'auth-failure  UNAUTHENTICATED POST /jsonrpc',
    ]);
    // The second SIGHUP reread the files (nothing changed, Bob's still missing), then the send.
    expect(after.map((line) => `${line.action} ${line.principal ?? ''} ${line.outcome}`)).toEqual(['token-reload bob FILE_NOT_FOUND', 'send alice ok']);
    for (const line of [...before, ...after]) {
      expect(Date.parse(line.time ?? '')).not.toBeNaN();
      if (line.action === 'send') expect(line).toMatchObject({ agent: 'ops-serve', address: expect.stringMatching(/127\.0\.0\.1/), task: expect.any(String) });
    }
    for (const text of [readFileSync(audit, 'utf8'), readFileSync(`${audit}.1`, 'utf8'), served.stderr()]) {
      for (const secret of [ALICE, ALICE_NEW, BOB, WORDS, 'after the move']) expect(text).not.toContain(secret);
    }
  });
});
