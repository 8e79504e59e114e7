// `a2a-lite serve --store sqlite` SIGKILLed at random moments under blocking and streaming sends,
// and restarted on the same home: the database passes integrity_check after each kill, and every
// task a client heard of is still there, in the state it was told or a later one, artifact whole.
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { A2AClient, stateOf, statusText, userMessage, type Json } from './a2a-calls.js';
import { artifactContent, artifactProblem, sha256 } from './artifact-content.js';
import { killHard, sleep, spawnServe, withTimeout, type ServeInfo } from './serve-process.js';

const PROGRAM = fileURLToPath(new URL('./write-artifact.mjs', import.meta.url));
const KILLS = 22;
const CLIENTS = 6;
/** What the server says of a task it finds unfinished when it starts (src/cli/commands/serve.ts). */
const RESTART_REASON = 'the server stopped before this task ended';
const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
const RANK: Readonly<Record<string, number>> = { TASK_STATE_SUBMITTED: 0, TASK_STATE_WORKING: 1, TASK_STATE_INPUT_REQUIRED: 1, TASK_STATE_AUTH_REQUIRED: 1 };
const rankOf = (state: string): number => (TERMINAL.has(state) ? 2 : (RANK[state] ?? -1));

/** A task a client heard of: its id, what it asked, which server run made it, every state it was told. */
interface Seen {
  id: string;
  text: string;
  sha: string;
  run: number;
  told: string[];
}

/** One run of the server, from its start to its kill. */
interface Run {
  number: number;
  client: A2AClient;
  alive: boolean;
  /** Resolves when the run has ended. */
  gone: Promise<void>;
  end(): void;
}

function startRun(number: number, info: ServeInfo): Run {
  let resolve: () => void = () => undefined;
  const gone = new Promise<void>((done) => (resolve = done));
  const run: Run = {
    number,
    client: new A2AClient(info.jsonrpc),
    alive: true,
    gone,
    end() {
      run.alive = false;
      run.client.close();
      resolve();
    },
  };
  return run;
}

describe('a2a-lite serve with SQLite, killed with SIGKILL under load', () => {
  it('keeps every task a client heard of, never in an earlier state, with whole artifacts, and an intact database', async () => {
    const started = Date.now();
    const home = tempHome('serve-crash');
    expect(cli(['card', 'init', '--id', 'crash', '--name', 'Crash', '--skill', 'data:Data:writes 64 KiB of data'], { home }).code).toBe(0);
    const exec = `"${process.execPath}" "${PROGRAM}"`;
    const seen = new Map<string, Seen>();
    const problems: string[] = [];
    const figures = { kills: 0, killsWhileStarting: 0, checks: 0, artifacts: 0, sends: 0, brokenByKill: 0 };
    /** How each task a kill cut off was found at the end: failed by the restart, or completed after all. */
    const cutOff = { failedOnRestart: 0, completedAnyway: 0 };

    // Clients wait here while no server runs.
    let run: Run | undefined;
    let stopping = false;
    let wakeClients: () => void = () => undefined;
    let serverUp = new Promise<void>((resolve) => (wakeClients = resolve));

    const told = (id: string, text: string, number: number, state: string | undefined): void => {
      let task = seen.get(id);
      if (task === undefined) {
        task = { id, text, sha: sha256(artifactContent(text)), run: number, told: [] };
        seen.set(id, task);
      }
      if (task.text !== text) problems.push(`task ${id} was told for "${task.text}" and for "${text}"`);
      if (state !== undefined && task.told.at(-1) !== state) task.told.push(state);
    };

    const blocking = async (current: Run, text: string): Promise<void> => {
      const answer = await current.client.call('SendMessage', { message: userMessage(text) });
      const task = answer.result?.task as Json | undefined;
      if (task === undefined || typeof task.id !== 'string') return void problems.push(`SendMessage "${text}" answered ${JSON.stringify(answer.error ?? answer).slice(0, 200)}`);
      const state = stateOf(task);
      told(task.id, text, current.number, state);
      if (state !== 'TASK_STATE_COMPLETED') problems.push(`SendMessage "${text}" ended ${state}: ${statusText(task)}`);
      else checkArtifact(task, seen.get(task.id) as Seen, 'in the SendMessage answer');
    };

    const streaming = async (current: Run, text: string): Promise<void> => {
      let id: string | undefined;
      await current.client.stream('SendStreamingMessage', { message: userMessage(text) }, (answer) => {
        const event = answer.result;
        if (event === undefined) return void problems.push(`stream "${text}" sent ${JSON.stringify(answer.error).slice(0, 200)}`);
        const holder = (event.task ?? event.statusUpdate ?? event.artifactUpdate) as { id?: string; taskId?: string } | undefined;
        id ??= holder?.id ?? holder?.taskId;
        if (id !== undefined) told(id, text, current.number, stateOf(event));
      });
      const last = id === undefined ? undefined : seen.get(id)?.told.at(-1);
      if (last !== 'TASK_STATE_COMPLETED') problems.push(`stream "${text}" ended without completing (last told ${last})`);
    };

    const client = async (index: number): Promise<void> => {
      for (let n = 0; !stopping; n += 1) {
        await serverUp;
        const current = run;
        if (stopping || current === undefined || !current.alive) continue;
        const text = `task ${index}-${n} ${Math.random().toString(36).slice(2, 10)}`;
        figures.sends += 1;
        try {
          await ((index + n) % 2 === 0 ? blocking(current, text) : streaming(current, text));
        } catch (error) {
          // A call the kill broke is expected; one that broke while the server ran is not.
          if (current.alive) {
            problems.push(`"${text}" broke while the server ran: ${(error as Error).message}`);
            await sleep(50);
          } else {
            figures.brokenByKill += 1;
            await current.gone;
          }
        }
      }
    };

    function checkArtifact(task: Json, expected: Seen, where: string): void {
      figures.artifacts += 1;
      const problem = artifactProblem(task, expected.sha);
      if (problem !== undefined) problems.push(`task ${expected.id} ${where}: ${problem}`);
    }

    /** GetTask for every task a client heard of, `afterRun` being the run just killed. */
    const checkAll = async (client: A2AClient, afterRun: number): Promise<void> => {
      const tasks = [...seen.values()];
      const checkOne = async (expected: Seen): Promise<void> => {
        figures.checks += 1;
        const answer = await client.call('GetTask', { id: expected.id, historyLength: 0 });
        const task = answer.result;
        const where = `after restart ${afterRun}`;
        if (task === undefined) return void problems.push(`task ${expected.id} (run ${expected.run}) is gone ${where}: ${JSON.stringify(answer.error)}`);
        const state = stateOf(task) ?? '(none)';
        const endedAs = expected.told.find((s) => TERMINAL.has(s));
        const highest = Math.max(...expected.told.map(rankOf));
        const history = `told ${expected.told.join(' → ')}, stored ${state}`;
        if (endedAs !== undefined && state !== endedAs) problems.push(`task ${expected.id} went back ${where}: ${history}`);
        if (rankOf(state) < highest) problems.push(`task ${expected.id} went back ${where}: ${history}`);
        if (expected.run <= afterRun && !TERMINAL.has(state)) problems.push(`task ${expected.id} of run ${expected.run} is still ${state} ${where}`);
        if (state === 'TASK_STATE_FAILED' && endedAs === undefined && statusText(task) !== RESTART_REASON) {
          problems.push(`task ${expected.id} failed ${where} for another reason than the restart: ${statusText(task)}`);
        }
        if (state === 'TASK_STATE_CANCELED' || state === 'TASK_STATE_REJECTED') problems.push(`task ${expected.id} ${where}: ${history}`);
        if (state === 'TASK_STATE_COMPLETED') checkArtifact(task, expected, where);
        if (afterRun > KILLS && endedAs === undefined) cutOff[state === 'TASK_STATE_FAILED' ? 'failedOnRestart' : 'completedAnyway'] += 1;
      };
      for (let i = 0; i < tasks.length; i += 8) await Promise.all(tasks.slice(i, i + 8).map(checkOne));
    };

    const integrityAfterKill = (path: string, kill: number): void => {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        const result = db.pragma('integrity_check', { simple: true });
        if (result !== 'ok') problems.push(`integrity_check after kill ${kill}: ${String(result)}`);
      } finally {
        db.close();
      }
    };

    const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
    let database = '';
    try {
      for (let kill = 1; kill <= KILLS; kill += 1) {
        const server = spawnServe(home, exec, ['--store', 'sqlite']);
        // Now and then the kill lands while the server starts: recovery, migration, first listen.
        if (kill % 6 === 3) {
          let listening = false;
          await Promise.race([server.ready.then(() => (listening = true)).catch(() => undefined), sleep(Math.random() * 400)]);
          await killHard(server);
          if (!listening) figures.killsWhileStarting += 1;
        } else {
          const info = await withTimeout(server.ready, 15_000, `serve did not start for run ${kill}`);
          database = info.store;
          const current = startRun(kill, info);
          run = current;
          wakeClients();
          // Before the load of this run has had time to finish anything, check what earlier runs left.
          const checked = checkAll(current.client, kill - 1);
          await sleep(250 + Math.random() * 950);
          await checked;
          current.alive = false;
          serverUp = new Promise<void>((resolve) => (wakeClients = resolve));
          await killHard(server);
          current.end();
        }
        figures.kills += 1;
        if (database !== '') integrityAfterKill(database, kill);
        expect(problems.slice(0, 20), `after kill ${kill}`).toEqual([]);
      }

      // One last run: the load stops, every task is checked once more, and SIGTERM stops it cleanly.
      const server = spawnServe(home, exec, ['--store', 'sqlite']);
      const info = await withTimeout(server.ready, 15_000, 'serve did not start for the last run');
      const final = startRun(KILLS + 1, info);
      run = final;
      wakeClients();
      await sleep(500);
      stopping = true;
      await withTimeout(Promise.all(clients), 20_000, 'the clients did not stop');
      await checkAll(final.client, KILLS + 1);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      integrityAfterKill(info.store, KILLS + 1);
    } finally {
      stopping = true;
      run?.end();
      wakeClients();
    }

    expect(problems.slice(0, 20)).toEqual([]);
    expect(figures.kills).toBeGreaterThanOrEqual(20);
    const completed = [...seen.values()].filter((t) => t.told.includes('TASK_STATE_COMPLETED')).length;
    const interrupted = seen.size - completed;
    // The kills must have caught tasks midway, or the test proved nothing about recovery.
    expect(cutOff.failedOnRestart).toBeGreaterThan(0);
    expect(figures.artifacts).toBeGreaterThan(0);
    console.log(
      `serve crash: ${figures.kills} SIGKILLs survived (${figures.killsWhileStarting} before it listened), ${seen.size} tasks heard of ` +
        `(${completed} told completed; ${interrupted} cut off by a kill, of which ${cutOff.failedOnRestart} failed on restart ` +
        `and ${cutOff.completedAnyway} had completed), ${figures.sends} sends, ${figures.brokenByKill} broken by a kill, ` +
        `${figures.checks} GetTask checks (${figures.artifacts} artifacts compared byte for byte), ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 90_000);
});
