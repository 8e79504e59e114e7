// `a2a-lite run PLAN`: runs a plan of steps across A2A agents (serial, parallel, conditional,
// fan-out), showing the tree of steps as it goes; `--resume RUN_ID` continues a run a crash or
// a kill left behind. The exit code says how the plan ended.

import { dirname, resolve } from 'node:path';
import { LiteError } from '../../errors.js';
import { inOrder } from '../../orchestrate/plan-check.js';
import { readPlanFile } from '../../orchestrate/plan-file.js';
import type { RunResult } from '../../orchestrate/run-plan.js';
import { resumeRun, runPlan } from '../../orchestrate/run-plan.js';
import { atMost, parseOptions } from '../args.js';
import type { Command, Context } from '../context.js';
import { note, printLine } from '../output.js';
import { RunView } from '../run-view.js';
import { openStores } from '../stores.js';

/** The exit code for each way a run ends. */
export const RUN_EXIT = { completed: 0, failed: 10, cancelled: 130, running: 1 } as const;

export const command: Command = {
  usage: 'a2a-lite run PLAN [--input NAME=VALUE …] [--max-parallel N] [--check] [--json] | a2a-lite run --resume RUN_ID',
  help: `Runs a plan: steps given to A2A agents (by URL, known id or skill), each as soon as the
steps it needs have ended, so that steps with no path between them run side by side. A step
may run only when a condition on earlier steps holds (when), fan out over a list or over every
known agent with a skill (each), try again with a pause that doubles (retries, backoff), go to
a fallback agent, and be cancelled when it takes too long (timeout). Its words are templated
from the plan's inputs and the earlier steps' text, data and files: {{inputs.topic}},
{{steps.gather.text}}, {{steps.review.data.verdict}}, {{steps.draft.files}}. The plan is a
YAML or JSON file; docs/orchestration.md describes every field.

The whole plan is checked before anything is sent: a cycle in needs, a step or input that does
not exist, a template naming a field no step has, or an unknown agent is refused, naming the
step and field. All subtasks share one context id, carry the ids of the tasks they build on
(referenceTaskIds), and are recorded in the ledger with run= and step=.

The run's state is written as it goes under <home>/runs/<run id>/. After a crash or a kill,
--resume RUN_ID continues it: finished steps are kept, running ones followed by their task id,
and a step whose send may not have arrived is sent again under the same Idempotency-Key, so no
agent gets the same work twice. Ctrl-C cancels every running subtask at its agent and exits;
--resume then starts the cancelled steps again.

options:
  --input NAME=VALUE  a value for one of the plan's inputs (repeat)
  --max-parallel N    at most N subtasks at their agents at once (default 8)
  --hub URL           let this a2a-lite hub choose the agents for skill: steps and each:
                      {agents: SKILL} (in place of the plan's hub; else the known agents)
  --hub-token-env NAME  the environment variable holding the hub's token
  --check             check the plan and print the order of its steps; send nothing
  --resume RUN_ID     continue a run that did not finish (a2a-lite runs list)
  --json              one JSON line per event instead of the tree

exit codes: 0 every step completed (or was skipped by its condition) · 10 a step failed, was
rejected or cancelled, or asked for input · 130 interrupted (Ctrl-C; running subtasks were
cancelled at their agents) · 2 usage · 3 INVALID_PLAN · 4 an agent, a file or the run is
not found · 6 a file outside the plan's folder · other codes as in docs/errors.md

examples:
  a2a-lite run plan.yaml --input topic="AI agent frameworks"
  a2a-lite run fan-out.yaml --max-parallel 5 --json
  a2a-lite run --resume 20261123-210501-k3x9q2`,
  run,
};

async function run(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('run', args, {
    input: { type: 'string', multiple: true },
    'max-parallel': { type: 'string' },
    resume: { type: 'string' },
    check: { type: 'boolean' },
    hub: { type: 'string' },
    'hub-token-env': { type: 'string' },
  });
  atMost('run', positionals, 1);
  const maxParallel = values['max-parallel'] === undefined ? undefined : Number(values['max-parallel']);
  if (maxParallel !== undefined && (!Number.isInteger(maxParallel) || maxParallel < 1 || maxParallel > 1_000)) {
    throw new LiteError('USAGE', `run: --max-parallel takes a whole number from 1 to 1000, not ${JSON.stringify(values['max-parallel'])}`);
  }
  const inputs = inputsOf(values.input ?? []);
  if (values['hub-token-env'] !== undefined && values.hub === undefined) throw new LiteError('USAGE', 'run: --hub-token-env goes with --hub URL');
  if (values.hub !== undefined && !/^https?:\/\//i.test(values.hub)) throw new LiteError('USAGE', 'run: --hub takes the http or https URL of an a2a-lite hub');
  const hub = values.hub === undefined ? undefined : { url: values.hub, ...(values['hub-token-env'] !== undefined ? { tokenEnv: values['hub-token-env'] } : {}) };
  const [file] = positionals;
  if (values.resume === undefined && file === undefined) throw new LiteError('USAGE', 'run: name the PLAN file, or --resume RUN_ID; see: a2a-lite run --help');
  if (values.resume !== undefined && (file !== undefined || inputs !== undefined || values.hub !== undefined)) throw new LiteError('USAGE', 'run: --resume takes the run id alone; the plan and inputs are those the run started with');

  const plan = file === undefined ? undefined : await readPlanFile(resolve(context.cwd, file));
  if (plan !== undefined && values.check === true) {
    for (const step of inOrder(plan.steps)) printLine(context, `${step.id}${step.needs.length > 0 ? ` (after ${step.needs.join(', ')})` : ''}`);
    return 0;
  }
  const stores = openStores(values, context);
  const json = values.json === true;
  const view = new RunView(context, json ? 'json' : context.stdout === process.stdout && process.stdout.isTTY ? 'tty' : 'lines');

  // Ctrl-C: cancel every running subtask at its agent, then stop; a second Ctrl-C leaves at once.
  const interrupt = new AbortController();
  const onSigint = (): void => {
    if (interrupt.signal.aborted) process.exit(130);
    if (!json) note(context, 'interrupted: cancelling the running subtasks at their agents (Ctrl-C again to leave at once)');
    interrupt.abort(new LiteError('TASK_TERMINAL', 'interrupted'));
  };
  process.on('SIGINT', onSigint);
  try {
    const common = { stores, env: context.env, signal: interrupt.signal, onEvent: (event: Parameters<typeof view.show>[0]) => view.show(event), ...(maxParallel !== undefined ? { maxParallel } : {}) };
    const result =
      values.resume !== undefined
        ? await resumeRun(values.resume, common)
        : await runPlan(plan, { ...common, root: dirname(resolve(context.cwd, file as string)), source: resolve(context.cwd, file as string), inputs: inputs ?? {}, ...(hub !== undefined ? { hub } : {}) });
    view.finish();
    if (!json) report(context, result);
    return RUN_EXIT[result.run.state];
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** `--input k=v` values as a record; undefined when none were given. */
function inputsOf(given: readonly string[]): Record<string, string> | undefined {
  if (given.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const pair of given) {
    const at = pair.indexOf('=');
    if (at < 1) throw new LiteError('USAGE', `run: --input takes NAME=VALUE, not ${JSON.stringify(pair.slice(0, 40))}`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** The run's end and output, after the tree. */
function report(context: Context, result: RunResult): void {
  const { run } = result;
  printLine(context);
  printLine(context, `run ${run.id} ${run.state}${run.error ? `: ${run.error}` : ''}`);
  if (run.output !== undefined && run.output.text !== '') printLine(context, `\n${run.output.text}`);
  for (const file of run.output?.files ?? []) printLine(context, `[附件: ${file.path ?? file.url ?? file.name}]`);
  if (run.state === 'failed' || run.state === 'cancelled') note(context, `see every step with: a2a-lite runs show ${run.id}`);
}
