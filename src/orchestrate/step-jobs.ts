// Making a step's subtasks when its turn comes: the items of a fan-out, and for each the words,
// files and target rendered from the plan's inputs and the earlier steps' answers. Files sent
// must lie inside the run's folder (or be files an earlier step's agent returned).

import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { TokenRules } from '../client/token-rules.js';
import { LiteError } from '../errors.js';
import type { Each, Step, Target } from './plan.js';
import type { RunRecord, SavedFileRef, SubtaskRecord } from './run-state.js';
import type { SubtaskJob } from './subtask.js';
import { fanOutAgents } from './targets.js';
import type { Stores } from '../home/stores.js';
import { dig, renderTemplate, type Reference } from './template.js';
import type { AddressGuardOptions } from '../net/address-guard.js';

/** How an ended step looks to the steps after it. */
export interface StepAnswer {
  state: SubtaskRecord['state'];
  text: string;
  data: unknown;
  files: SavedFileRef[];
  tasks: string[];
  agent?: string;
}

/** The items a fan-out step runs over. */
export async function itemsOf(each: Each, run: RunRecord, answers: Readonly<Record<string, StepAnswer>>, stores: Stores, path: string, env: NodeJS.ProcessEnv, rules?: TokenRules, guard?: AddressGuardOptions): Promise<unknown[]> {
  switch (each.kind) {
    case 'list':
      return each.items;
    case 'input': {
      const value = (run.inputs[each.input] ?? '').trim();
      if (value.startsWith('[')) {
        try {
          const list = JSON.parse(value) as unknown;
          if (Array.isArray(list)) return list;
        } catch {
          // Not JSON after all: read it as lines or commas.
        }
      }
      return value.split(value.includes('\n') ? '\n' : ',').map((s) => s.trim()).filter((s) => s !== '');
    }
    case 'agents': {
      const agents = await fanOutAgents(stores, each.skill, run.plan.hub, env, rules, guard);
      if (agents.length === 0) throw new LiteError('AGENT_NOT_FOUND', `${path}: no known A2A agent offers the skill "${each.skill}"`, { skill: each.skill });
      return agents;
    }
    case 'data': {
      const list = dig(answers[each.step]?.data, each.data.split('.'));
      if (!Array.isArray(list)) throw new LiteError('INVALID_PLAN', `${path}: the data of step ${each.step} has no list at "${each.data}"`, { path });
      return list;
    }
  }
}

/** What a step's templates read, for one item. */
export interface Scope {
  run: RunRecord;
  answers: Readonly<Record<string, StepAnswer>>;
  item?: unknown;
  index?: number;
}

/** Renders `template` (at `path`, for errors) in `scope`. */
export function render(template: string, scope: Scope, path: string): string {
  return renderTemplate(template, (ref) => lookup(ref, scope, path));
}

function lookup(ref: Reference, scope: Scope, path: string): unknown {
  switch (ref.kind) {
    case 'input':
      return scope.run.inputs[ref.name];
    case 'run':
      return ref.field === 'id' ? scope.run.id : scope.run.contextId;
    case 'index':
      return scope.index;
    case 'item': {
      const value = dig(scope.item, ref.path);
      if (value === undefined) throw new LiteError('INVALID_PLAN', `${path}: the item has no field "${ref.path.join('.')}"`, { path });
      return value;
    }
    case 'step': {
      const answer = scope.answers[ref.step];
      // A step that was skipped gives nothing: its words are empty.
      if (answer === undefined) return '';
      switch (ref.field) {
        case 'data': {
          const value = dig(answer.data, ref.path);
          if (value === undefined && answer.state !== 'skipped') {
            throw new LiteError('INVALID_PLAN', `${path}: step ${ref.step} gave no data${ref.path.length > 0 ? ` field "${ref.path.join('.')}"` : ''}`, { path });
          }
          return value;
        }
        case 'files':
          return answer.files.map((f) => f.name).join(', ');
        case 'task':
          return answer.tasks.at(-1) ?? '';
        case 'agent':
          return answer.agent ?? '';
        case 'state':
          return answer.state;
        case 'text':
          return answer.text;
      }
    }
  }
}

/** The files a step sends: `{{steps.ID.files}}` gives that step's files, any other entry a path inside the run's folder. */
export function attachments(step: Step, scope: Scope): string[] {
  const out: string[] = [];
  step.attach.forEach((entry, at) => {
    const path = `steps.${step.id}.attach[${at}]`;
    const whole = /^\{\{\s*steps\.([A-Za-z][A-Za-z0-9_-]*)\.files\s*\}\}$/.exec(entry.trim());
    if (whole !== null) {
      for (const file of scope.answers[whole[1] as string]?.files ?? []) if (file.path !== undefined) out.push(file.path);
      return;
    }
    out.push(inside(scope.run.root, render(entry, scope, path), path));
  });
  return out;
}

/** `given` resolved inside `root`, or FORBIDDEN: a plan may not send files from elsewhere. */
export function inside(root: string, given: string, path: string): string {
  const full = resolve(root, given);
  const real = existsSync(full) ? realpathSync(full) : full;
  const base = existsSync(root) ? realpathSync(root) : root;
  const rel = relative(base, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    throw new LiteError('FORBIDDEN', `${path}: ${JSON.stringify(given.slice(0, 80))} lies outside the plan's folder ${base}; only files inside it may be sent`, { path });
  }
  return real;
}

/** The job for one subtask of `step`. */
export function makeJob(step: Step, record: SubtaskRecord, scope: Scope): SubtaskJob {
  const at = `steps.${step.id}`;
  const job: SubtaskJob = {
    record,
    step,
    text: render(step.text, scope, `${at}.text`),
    attach: attachments(step, scope),
    target: renderTarget(step.target, scope, `${at}.agent`),
    references: step.needs.flatMap((id) => scope.answers[id]?.tasks.slice(-1) ?? []),
  };
  if (step.fallback !== undefined) job.fallback = renderTarget(step.fallback, scope, `${at}.fallback`);
  return job;
}

function renderTarget(target: Target, scope: Scope, path: string): Target {
  if ('skill' in target) return target;
  const agent = render(target.agent, scope, path).trim();
  if (agent === '') throw new LiteError('INVALID_PLAN', `${path}: the agent came out empty`, { path });
  return { agent };
}
