// `a2a-lite runs list|show`: the plan runs kept under <home>/runs/, how each stands, and for one
// run every step with its agent, task ids, attempts and answer.

import { runStoreOf } from '../../orchestrate/run-plan.js';
import { isAlive, type RunRecord } from '../../orchestrate/run-state.js';
import { LiteError } from '../../errors.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { printJson, printLine, table } from '../output.js';
import { openStores } from '../stores.js';

const LIST = { usage: 'a2a-lite runs list [--json]', help: 'Lists the plan runs of this home, newest first: id, state, plan name, when it started, and how many steps have ended. A run left "running" by a process that is gone shows as "stopped": continue it with a2a-lite run --resume RUN_ID.\n\nexample:\n  a2a-lite runs list --json' };
const SHOW = {
  usage: 'a2a-lite runs show RUN_ID [--json]',
  help: 'Shows one run: its plan, inputs, context id and output, and every step (each item of a fan-out) with its state, agent, attempts, task ids and answer or error. With --json, the run record and the step records as they are saved.\n\nexample:\n  a2a-lite runs show 20261123-210501-k3x9q2',
};

export const command: Command = {
  usage: 'a2a-lite runs list|show [RUN_ID] [--json]',
  help: `The plan runs kept under <home>/runs/ by a2a-lite run.

  runs list           every run, newest first
  runs show RUN_ID    one run with each of its steps

examples:
  a2a-lite runs list
  a2a-lite runs show 20261123-210501-k3x9q2 --json`,
  subcommands: { list: LIST, show: SHOW },
  run,
};

function run(args: string[], context: Context): number {
  const [action, ...rest] = args;
  if (action !== 'list' && action !== 'show') throw new LiteError('USAGE', `runs: say list or show${action === undefined ? '' : `, not ${JSON.stringify(action.slice(0, 20))}`}; see: a2a-lite runs --help`);
  const { values, positionals } = parseOptions(`runs ${action}`, rest, {});
  const stores = openStores(values, context);
  const runs = runStoreOf(stores);
  if (action === 'list') {
    atMost('runs list', positionals, 0);
    const all = runs.list();
    if (values.json === true) {
      printJson(context, all.map((r) => ({ id: r.id, name: r.name, state: shownState(r), createdAt: r.createdAt, updatedAt: r.updatedAt, steps: r.plan.steps.length, ...(r.error ? { error: r.error } : {}) })));
      return 0;
    }
    if (all.length === 0) {
      printLine(context, 'no runs yet; start one with: a2a-lite run PLAN');
      return 0;
    }
    for (const line of table([['RUN', 'STATE', 'PLAN', 'STARTED'], ...all.map((r) => [r.id, shownState(r), r.name, r.createdAt])])) printLine(context, line);
    return 0;
  }
  atMost('runs show', positionals, 1);
  const id = required('runs show', positionals[0], 'RUN_ID');
  const { run: record, subtasks } = runs.load(id);
  const steps = [...subtasks.values()].sort((a, b) => order(record, a.key) - order(record, b.key) || (a.index ?? -1) - (b.index ?? -1));
  if (values.json === true) {
    printJson(context, { run: { ...record, state: shownState(record) }, steps });
    return 0;
  }
  printLine(context, `run ${record.id} · plan ${record.name} · ${shownState(record)}${record.error ? ` · ${record.error}` : ''}`);
  printLine(context, `context ${record.contextId} · started ${record.createdAt}${record.source ? ` · from ${record.source}` : ''}`);
  const inputs = Object.entries(record.inputs);
  if (inputs.length > 0) printLine(context, `inputs: ${inputs.map(([k, v]) => `${k}=${JSON.stringify(v.length > 60 ? `${v.slice(0, 59)}…` : v)}`).join(' ')}`);
  printLine(context);
  const rows = steps.map((s) => [s.key, s.state, s.agent ?? '', s.attempt > 1 ? `${s.attempt} attempts${s.fallback ? ' (fallback)' : ''}` : '', s.tasks.join(' '), (s.error ?? s.text ?? '').replace(/\s+/g, ' ').slice(0, 80)]);
  for (const line of table([['STEP', 'STATE', 'AGENT', 'TRIES', 'TASKS', 'ANSWER'], ...rows])) printLine(context, line);
  for (const step of record.plan.steps) if (!subtasks.has(step.id)) printLine(context, `${step.id}  waiting`);
  if (record.output !== undefined && record.output.text !== '') printLine(context, `\noutput:\n${record.output.text}`);
  for (const file of record.output?.files ?? []) printLine(context, `[附件: ${file.path ?? file.url ?? file.name}]`);
  return 0;
}

/** A run marked running whose process is gone has stopped: it waits for --resume. */
function shownState(run: RunRecord): string {
  return run.state === 'running' && !isAlive(run.pid) ? 'stopped' : run.state;
}

function order(run: RunRecord, key: string): number {
  const id = key.split('.')[0];
  return run.plan.steps.findIndex((s) => s.id === id);
}
