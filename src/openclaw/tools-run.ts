// The plugin's tool that runs a plan (`a2a-lite run` as a tool): the plan file lies in the
// workspace, its inputs come as arguments, each step's change is reported as progress, and the
// answer is the plan's output with its files. Every request of the run (agents, cards, the
// plan's hub, each redirect) passes the same network check as send, when it connects.

import { dirname } from 'node:path';
import { readPlanFile } from '../orchestrate/plan-file.js';
import { resumeRun, runPlan, type RunResult } from '../orchestrate/run-plan.js';
import { LiteError } from '../errors.js';
import type { OpenStores } from './tools-local.js';
import { checkAgentUrl, guardOf, insideWorkspace, type RemoteSettings } from './tools-remote.js';
import { str, type ToolSpec } from './tool-kit.js';
import { pluginTrail } from './trail.js';

export function runTools(open: OpenStores, settings: RemoteSettings): ToolSpec[] {
  return [
    {
      name: 'a2a_lite_run',
      label: 'A2A-Lite: run a plan across agents',
      description:
        'Run a plan (a YAML or JSON file in the workspace; see docs/orchestration.md): steps given to A2A agents in series, in parallel, on conditions or fanned out, with retries and fallbacks. Returns the plan\'s output and files; each step\'s change comes as progress. resume=RUN_ID continues a run that was cut off, sending no step twice.',
      properties: {
        plan: str('The plan file, inside the workspace'),
        inputs: { type: 'object', additionalProperties: { type: 'string' }, description: "Values for the plan's inputs, by name" },
        maxParallel: { type: 'number', description: 'At most this many subtasks at their agents at once (default 8)' },
        resume: str('The id of a run to continue instead of starting one'),
      },
      async run(args, signal, progress, trace) {
        const planFile = args.string('plan');
        const resume = args.string('resume');
        if ((planFile === undefined) === (resume === undefined)) throw new LiteError('USAGE', 'a2a_lite_run: give plan (a file in the workspace) or resume (a run id)');
        const inputs: Record<string, string> = {};
        for (const [key, value] of Object.entries(args.object('inputs') ?? {})) {
          if (typeof value !== 'string') throw new LiteError('USAGE', `a2a_lite_run: the input ${key} is text`);
          inputs[key] = value;
        }
        const maxParallel = args.number('maxParallel');
        const stores = open();
        const common = {
          stores,
          env: settings.env,
          ...(signal ? { signal } : {}),
          ...(maxParallel !== undefined ? { maxParallel } : {}),
          checkUrl: (url: string) => checkAgentUrl(url, settings),
          guard: guardOf(settings),
          tokenRules: settings.tokens,
          trail: pluginTrail(stores, settings.env),
          ...(trace === undefined ? {} : { trace }),
          onEvent: (event: Parameters<NonNullable<Parameters<typeof runPlan>[1]['onEvent']>>[0]) => {
            if (event.type === 'step') progress(`${event.key}: ${event.state}${event.error ? ` (${event.error})` : ''}`, { step: event.key, state: event.state, task: event.task ?? null });
          },
        };
        let result: RunResult;
        if (resume !== undefined) result = await resumeRun(resume, common);
        else {
          const path = insideWorkspace(planFile as string, settings.workspace, 'a2a_lite_run');
          result = await runPlan(await readPlanFile(path), { ...common, root: dirname(path), source: path, inputs });
        }
        const { run } = result;
        const files = run.output?.files ?? [];
        const lines = [`run ${run.id} ${run.state}${run.error ? `: ${run.error}` : ''}`];
        if (run.output?.text) lines.push(run.output.text);
        for (const file of files) lines.push(file.path ? `saved ${file.name} to ${file.path}` : `${file.name} is at ${file.url}`);
        return {
          text: lines.join('\n\n'),
          details: {
            run: run.id,
            state: run.state,
            output: run.output?.text ?? '',
            files,
            steps: result.subtasks.map((s) => ({ key: s.key, state: s.state, agent: s.agent ?? null, tasks: s.tasks, ...(s.error ? { error: s.error } : {}) })),
          },
        };
      },
    },
  ];
}
