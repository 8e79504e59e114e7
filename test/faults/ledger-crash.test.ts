// The CLI's file ledger with `tasks new`/`tasks record` processes SIGKILLed mid-write, some while
// their next version sits unlinked in a temporary file (src/store/task-ledger.ts): whatever exited
// 0 is recorded whole, every task reads back, and nothing left behind is taken for a version.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';

const JOBS = 90;
const AT_ONCE = 8;
const PEERS = ['mexico', 'lumen'];
/** Long bodies make each version take longer to write and flush, so kills land inside that more often. */
const FILLER = ' lorem ipsum dolor sit amet'.repeat(1600);
const VERSION = /^v(\d{8})\.json$/;

type Kill = 'none' | 'timed' | 'on-temp';

interface Job {
  n: number;
  kind: 'new' | 'record';
  args: string[];
  /** The first line of each message's body: how its history entries are found. */
  markers: string[];
  /** The task a record is about (a new task's id is known only from its output). */
  task?: { peer: string; id: string };
  kill: Kill;
  code?: number | null;
  signal?: NodeJS.Signals | null;
  stdout?: string;
  stderr?: string;
}

interface HistoryEntry {
  body: string;
}

describe('the file ledger with CLI processes killed mid-write', () => {
  it('records every command that exited 0 whole, reads every task back, and leaves nothing it would misread', async () => {
    const started = Date.now();
    const home = tempHome('ledger-crash');
    const tasksDir = join(home, 'tasks');
    const env = { A2A_LITE_HOME: home };
    const known: { peer: string; id: string }[] = [];

    // A few tasks to record on from the start, made without interference.
    for (const [i, peer] of [...PEERS, ...PEERS].entries()) {
      const made = await cliAsync(['tasks', 'new', '--to', peer, '--skill', 'research', '--body', `seed ${i}`, '--json'], { home });
      expect(made.code, made.stderr).toBe(0);
      known.push({ peer, id: (JSON.parse(made.stdout) as { id: string }).id });
    }

    // Kills on sight of a writer's temporary file: `.tmp-<pid>-…` in a task's folder.
    const killOnTemp = new Set<number>();
    const tempKills = { sent: 0 };
    const watchers: FSWatcher[] = [];
    const watchFolder = (task: { peer: string; id: string }): void => {
      const watcher = watch(join(tasksDir, task.peer, task.id), (_event, name) => {
        const pid = Number(/^\.tmp-(\d+)-/.exec(String(name))?.[1]);
        if (!killOnTemp.has(pid)) return;
        killOnTemp.delete(pid);
        tempKills.sent += 1;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      });
      watcher.on('error', () => undefined);
      watchers.push(watcher);
    };
    known.forEach(watchFolder);

    // Out of every ten processes: three make a task, seven record on one; five are meant to be
    // killed, three of them on sight of their temporary file, two after a random time.
    const makeJob = (n: number): Job => {
      const slot = n % 10;
      if (slot < 3) {
        const peer = PEERS[n % PEERS.length] as string;
        const marker = `job ${n}: a new task`;
        const args = ['tasks', 'new', '--to', peer, '--skill', slot === 1 ? 'email' : 'research', '--body', `${marker}\n${FILLER}`, '--json'];
        return { n, kind: 'new', args, markers: [marker], kill: slot === 0 ? 'timed' : 'none' };
      }
      const task = known[Math.floor(Math.random() * known.length)] as { peer: string; id: string };
      // Some records carry two messages: a kill between them keeps the first alone.
      const markers = slot === 4 || slot === 7 ? [`job ${n}: note 1`, `job ${n}: note 2`] : [`job ${n}: note`];
      const text = markers.map((marker, i) => `[A2A:status task=${task.id} state=working progress=${(n + i) % 100}%]\n${marker}\n${FILLER}`).join('\n\n');
      const kill: Kill = slot === 3 || slot === 5 || slot === 7 ? 'on-temp' : slot === 9 ? 'timed' : 'none';
      return { n, kind: 'record', args: ['tasks', 'record', text], markers, task, kill };
    };

    /** How long a process that was left alone took, lately (the machine's load changes it). */
    const lifetimes: number[] = [];
    const lifetime = (): number => {
      const recent = lifetimes.slice(-15).sort((a, b) => a - b);
      return recent[Math.floor(recent.length / 2)] ?? 150;
    };

    const run = (job: Job): Promise<void> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [BIN, ...job.args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        let timer: NodeJS.Timeout | undefined;
        if (job.kill === 'on-temp' && child.pid !== undefined) killOnTemp.add(child.pid);
        // Start-up takes most of a process's life and the writes come last: aim at the second half.
        if (job.kill === 'timed') timer = setTimeout(() => child.kill('SIGKILL'), lifetime() * (0.5 + 0.55 * Math.random()));
        const began = Date.now();
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          if (code === 0) lifetimes.push(Date.now() - began);
          if (child.pid !== undefined) killOnTemp.delete(child.pid);
          Object.assign(job, { code, signal, stdout, stderr });
          if (code === 0 && job.kind === 'new') {
            const task = JSON.parse(stdout) as { id: string; peer: string };
            job.task = { peer: task.peer, id: task.id };
            known.push(job.task);
            watchFolder(job.task);
          }
          resolve();
        });
      });

    // Each job is made when it starts, so that records reach the tasks made meanwhile too.
    const jobs: Job[] = [];
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (jobs.length < JOBS) {
          const job = makeJob(jobs.length);
          jobs.push(job);
          await run(job);
        }
      }),
    );
    for (const watcher of watchers) watcher.close();

    const killed = jobs.filter((job) => job.signal === 'SIGKILL');
    const succeeded = jobs.filter((job) => job.code === 0);
    const otherwise = jobs.filter((job) => job.code !== 0 && job.signal !== 'SIGKILL');
    expect(otherwise.map((job) => `job ${job.n} (${job.kind}) exited ${job.code}: ${job.stderr}`)).toEqual([]);
    expect(killed.length).toBeGreaterThanOrEqual(20);

    // What is on disk: every file in a task folder is a whole version or a writer's temporary file.
    const folders: { peer: string; id: string; versions: number[]; temps: string[] }[] = [];
    const problems: string[] = [];
    const leftovers = { beforeLink: 0, afterLink: 0 };
    for (const peer of readdirSync(tasksDir).filter((name) => !name.startsWith('.'))) {
      for (const id of readdirSync(join(tasksDir, peer))) {
        const folder = join(tasksDir, peer, id);
        const names = readdirSync(folder);
        const versions = names.flatMap((name) => (VERSION.test(name) ? [Number(VERSION.exec(name)?.[1])] : [])).sort((a, b) => a - b);
        const temps = names.filter((name) => name.startsWith('.tmp-'));
        for (const name of names) if (!VERSION.test(name) && !name.startsWith('.tmp-')) problems.push(`${peer}/${id}/${name} is neither a version nor a temporary file`);
        versions.forEach((version, i) => {
          if (version !== i + 1) problems.push(`${peer}/${id}: versions ${versions.join(',')} have a gap`);
          const stored = JSON.parse(readFileSync(join(folder, `v${String(version).padStart(8, '0')}.json`), 'utf8')) as { summary: { messages: number }; entry: HistoryEntry };
          // Each version counts the messages up to it: a lost update would repeat a count.
          if (stored.summary.messages !== version) problems.push(`${peer}/${id}: version ${version} counts ${stored.summary.messages} messages`);
        });
        // A leftover temporary file shares its inode with a version when the kill came after the link.
        const published = new Set(versions.map((v) => statSync(join(folder, `v${String(v).padStart(8, '0')}.json`)).ino));
        for (const temp of temps) leftovers[published.has(statSync(join(folder, temp)).ino) ? 'afterLink' : 'beforeLink'] += 1;
        folders.push({ peer, id, versions, temps });
      }
    }
    expect(problems).toEqual([]);

    // The ledger reads all of it back through the CLI, temporary files and all.
    const listed = await cliAsync(['tasks', 'list', '--json'], { home });
    expect(listed.code, listed.stderr).toBe(0);
    const summaries = JSON.parse(listed.stdout) as { id: string; peer: string; messages: number }[];
    const withVersions = folders.filter((f) => f.versions.length > 0);
    expect(summaries.map((s) => `${s.peer}/${s.id}`).sort()).toEqual(withVersions.map((f) => `${f.peer}/${f.id}`).sort());
    const histories = new Map<string, HistoryEntry[]>();
    for (let i = 0; i < withVersions.length; i += AT_ONCE) {
      await Promise.all(
        withVersions.slice(i, i + AT_ONCE).map(async (folder) => {
          const shown = await cliAsync(['tasks', 'show', folder.id, '--peer', folder.peer, '--json'], { home });
          if (shown.code !== 0) return void problems.push(`tasks show ${folder.id}: exit ${shown.code}: ${shown.stderr}`);
          const history = (JSON.parse(shown.stdout) as { history: HistoryEntry[] }).history;
          if (history.length !== folder.versions.length) problems.push(`tasks show ${folder.id}: ${history.length} entries for ${folder.versions.length} versions`);
          histories.set(`${folder.peer}/${folder.id}`, history);
        }),
      );
    }
    expect(problems).toEqual([]);

    // Each message shows up once if its command exited 0, at most once if it was killed, in order.
    const entriesOf = (task: { peer: string; id: string }) => (histories.get(`${task.peer}/${task.id}`) ?? []).map((e) => e.body.split('\n')[0]);
    const allEntries = [...histories.values()].flat().map((e) => e.body.split('\n')[0]);
    let killedButRecorded = 0;
    for (const job of jobs) {
      const counts = job.markers.map((marker) => allEntries.filter((first) => first === marker).length);
      if (job.code === 0) {
        if (counts.some((c) => c !== 1)) problems.push(`job ${job.n} (${job.kind}) exited 0 but its messages appear ${counts.join(', ')} times`);
        if (job.task !== undefined && !job.markers.every((marker) => entriesOf(job.task as { peer: string; id: string }).includes(marker))) problems.push(`job ${job.n} is not in task ${job.task.id}`);
      } else {
        if (counts.some((c) => c > 1)) problems.push(`killed job ${job.n} appears ${counts.join(', ')} times`);
        if (counts.length === 2 && counts[1] === 1 && counts[0] === 0) problems.push(`killed job ${job.n} kept its second message without the first`);
        if (counts.some((c) => c === 1)) killedButRecorded += 1;
      }
    }
    const newIds = succeeded.filter((job) => job.kind === 'new').map((job) => `${job.task?.peer}/${job.task?.id}`);
    expect(new Set(newIds).size).toBe(newIds.length);
    // Ids claimed by a `tasks new` killed before it recorded its task are claimed still, and no task.
    const claims = readdirSync(join(tasksDir, '.claims'));
    const unused = claims.filter((id) => !withVersions.some((f) => f.id === id));
    expect(problems).toEqual([]);

    // The ledger goes on after the crashes: each task with leftovers takes one more message.
    for (const folder of folders.filter((f) => f.temps.length > 0 && f.versions.length > 0)) {
      const after = await cliAsync(['tasks', 'record', `[A2A:status task=${folder.id} state=working]\nafter the kills`], { home });
      expect(after.code, after.stderr).toBe(0);
    }

    console.log(
      `ledger crash: ${jobs.length} processes, ${killed.length} killed by SIGKILL (${tempKills.sent} on sight of their temporary file; ` +
        `${killedButRecorded} had published before dying), ${succeeded.length} exited 0 and were all found whole; ${withVersions.length} tasks read back ` +
        `with ${folders.reduce((n, f) => n + f.versions.length, 0)} versions; left behind and ignored: ${leftovers.beforeLink} temporary files never ` +
        `published, ${leftovers.afterLink} already linked, ${folders.length - withVersions.length} empty task folders, ${unused.length} claimed ids ` +
        `with no task; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 60_000);
});
