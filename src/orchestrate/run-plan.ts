// Running a plan: every step starts as soon as the steps it needs have ended (so steps with no
// path between them run side by side, up to `maxParallel` subtasks at once), a step whose
// `when` does not hold or whose needs failed is skipped, and the output is assembled at the
// end. The same loop resumes a run an earlier process left: what ended is kept, what ran is
// followed, what was being sent is sent again under its Idempotency-Key.

import type { Context } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { HubTrail } from '../a2a/wire/hub-trail.js';
import type { TokenRules } from '../client/token-rules.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LiteError, isLiteError } from '../errors.js';
import type { Stores } from '../home/stores.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import { FileTaskLedger } from '../home/task-ledger.js';
import { holds } from './condition.js';
import type { RunContext, RunEvent } from './events.js';
import { Limiter } from './limiter.js';
import { checkPlan, resolveInputs } from './plan-check.js';
import { parsePlanDocument } from './plan-parse.js';
import type { HubRef, Plan, Step } from './plan.js';
import { RunStore, isAlive, type RunRecord, type RunState, type SavedFileRef, type SubtaskRecord } from './run-state.js';
import { inside, itemsOf, makeJob, render, type StepAnswer } from './step-jobs.js';
import { runSubtask } from './subtask.js';
import { tracedRun } from './run-trace.js';
import { Targets, checkTarget } from './targets.js';

export interface RunOptions {
  stores: Stores;
  /** The folder files named in the plan are read from, and must lie inside (the plan's folder). */
  root: string;
  env: NodeJS.ProcessEnv;
  inputs?: Readonly<Record<string, string>>;
  /** The most subtasks at their agents at once (default 8). */
  maxParallel?: number;
  /** Aborting cancels every running subtask at its agent; the run ends `cancelled`. */
  signal?: AbortSignal;
  onEvent?(event: RunEvent): void;
  /** Where the plan came from, for `runs show`. */
  source?: string;
  /** Refuses an agent URL the caller may not call, before anything is sent to it. */
  checkUrl?(url: string): Promise<void>;
  /** A hub to choose agents for skills, in place of the plan's own `hub`. */
  hub?: HubRef;
  /** The token variables the run may send, each bound to its origin (the OpenClaw plugin's); default any. */
  tokenRules?: TokenRules;
  /** The hub trail the run's subtasks carry on: that of the task a served plan runs for. */
  trail?: HubTrail;
  /**
   * Checks the address of every request the run makes (cards, agents, the hub, each redirect)
   * when it connects, and connects to the address checked: `checkUrl` looks before, this at the
   * moment of calling, wherever the address came from.
   */
  guard?: AddressGuardOptions;
  /** The trace context the run's span is a child of (the request of a served plan's task, a tool's span), while tracing is on. */
  trace?: Context;
}

export interface RunResult {
  run: RunRecord;
  subtasks: SubtaskRecord[];
  /** The most subtasks that were at their agents at once. */
  peak: number;
}

export const DEFAULT_MAX_PARALLEL = 8;

/** The runs folder of a home. */
export function runStoreOf(stores: Stores): RunStore {
  return new RunStore(join(stores.home.dir, 'runs'));
}

/**
 * Runs `plan` (a Plan, or a document as a JSON or YAML file holds it) to its end. Everything is
 * checked before the first send; a bad plan is an INVALID_PLAN error naming the step and field.
 *
 * @example
 * const { run } = await runPlan(await readPlanFile('plan.yaml'), { stores, root: process.cwd(), env: process.env, inputs: { topic: 'A2A' } });
 * run.state; // 'completed'
 */
export async function runPlan(plan: Plan | unknown, options: RunOptions): Promise<RunResult> {
  const checked = checkPlan(isPlan(plan) ? structuredClone(plan) : parsePlanDocument(plan));
  if (options.hub !== undefined) checked.hub = options.hub;
  const inputs = resolveInputs(checked, options.inputs ?? {});
  // A token variable the caller may not use is refused before anything is sent.
  if (checked.hub?.tokenEnv !== undefined) options.tokenRules?.checkName(checked.hub.tokenEnv, 'plan: hub.tokenEnv');
  checked.steps.forEach((step) => {
    if (step.tokenEnv !== undefined) options.tokenRules?.checkName(step.tokenEnv, `plan: steps.${step.id}.tokenEnv`);
    for (const [target, path] of [[step.target, `steps.${step.id}.agent`], [step.fallback, `steps.${step.id}.fallback`]] as const) {
      const problem = target === undefined ? undefined : checkTarget(options.stores, target, path, checked.hub);
      if (problem !== undefined) throw new LiteError('INVALID_PLAN', `plan: ${problem}`, { path });
    }
    // A file named as it is must be there, inside the plan's folder, before anything is sent.
    step.attach.forEach((entry, at) => {
      if (entry.includes('{{')) return;
      const path = `steps.${step.id}.attach[${at}]`;
      if (!existsSync(inside(options.root, entry, path))) throw new LiteError('FILE_NOT_FOUND', `plan: ${path}: no file ${JSON.stringify(entry.slice(0, 80))} in the plan's folder`, { path });
    });
  });
  const maxParallel = options.maxParallel ?? DEFAULT_MAX_PARALLEL;
  if (!Number.isInteger(maxParallel) || maxParallel < 1 || maxParallel > 1_000) throw new LiteError('USAGE', 'run: --max-parallel takes a whole number from 1 to 1000');
  const now = new Date().toISOString();
  const run: RunRecord = {
    version: 1,
    id: RunStore.newId(),
    name: checked.name,
    ...(options.source !== undefined ? { source: options.source } : {}),
    root: options.root,
    plan: checked,
    inputs,
    contextId: randomUUID(),
    maxParallel,
    state: 'running',
    createdAt: now,
    updatedAt: now,
    pid: process.pid,
  };
  const runs = runStoreOf(options.stores);
  runs.create(run);
  return tracedRun(run, 'started', options.trace, (trace) => execute(run, new Map(), runs, options, 'started', trace));
}

/**
 * Resumes run `id`, which an earlier process left unfinished or which was interrupted (its
 * cancelled steps start again); a run that completed or failed is given back as it is.
 */
export async function resumeRun(id: string, options: Omit<RunOptions, 'inputs' | 'root' | 'source'>): Promise<RunResult> {
  const runs = runStoreOf(options.stores);
  const { run, subtasks } = runs.load(id);
  if (run.state === 'cancelled') {
    for (const [key, record] of subtasks) {
      if (record.state !== 'cancelled') continue;
      // A fan-out keeps its items; a subtask starts over, remembering the tasks it made.
      subtasks.set(key, record.items !== undefined ? { ...record, state: 'running' } : { ...fresh(key, record.step), ...(record.index === undefined ? {} : { index: record.index }), tasks: record.tasks });
    }
    run.state = 'running';
    delete run.error;
  }
  if (run.state !== 'running') return { run, subtasks: [...subtasks.values()], peak: 0 };
  if (isAlive(run.pid)) throw new LiteError('USAGE', `run ${id} is still being run by process ${run.pid}; stop it first (or wait for it)`, { run: id });
  run.pid = process.pid;
  if (options.maxParallel !== undefined) run.maxParallel = options.maxParallel;
  runs.saveRun(run);
  return tracedRun(run, 'resumed', options.trace, (trace) => execute(run, subtasks, runs, { ...options, root: run.root }, 'resumed', trace));
}

async function execute(run: RunRecord, saved: Map<string, SubtaskRecord>, runs: RunStore, options: RunOptions, how: 'started' | 'resumed', trace: Context | undefined): Promise<RunResult> {
  const emit = options.onEvent ?? (() => {});
  const limiter = new Limiter(run.maxParallel);
  // The subtasks' ledger records are not flushed to disk one by one: a run writes hundreds a
  // second, and its own state (run-state.ts), not the ledger, is what a resume reads.
  const stores: Stores = { ...options.stores, tasks: new FileTaskLedger(options.stores.tasks.dir, { durable: false }) };
  const hub = run.plan.hub === undefined ? undefined : { ref: run.plan.hub, env: options.env, rules: options.tokenRules };
  const targets = new Targets(options.stores, options.checkUrl, hub, options.guard);
  const ctx: RunContext = { stores, runs, run, targets, limiter, env: options.env, tokenRules: options.tokenRules, trail: options.trail, signal: options.signal ?? new AbortController().signal, emit, ...(options.guard === undefined ? {} : { guard: options.guard }), ...(trace === undefined ? {} : { trace }) };
  const steps = run.plan.steps;
  emit({ type: 'run', run: run.id, context: run.contextId, state: how, name: run.name, steps: steps.map((s) => ({ id: s.id, needs: s.needs, each: s.each !== undefined })) });
  const answers: Record<string, StepAnswer> = {};
  const records = new Map(saved);
  for (const step of steps) {
    const record = records.get(step.id);
    if (record !== undefined && isEnded(record.state)) answers[step.id] = answerOfRecords(record, step, records);
  }
  const pending = new Set(steps.filter((s) => answers[s.id] === undefined).map((s) => s.id));
  const running = new Map<string, Promise<void>>();
  for (;;) {
    for (const step of steps) {
      if (!pending.has(step.id) || !step.needs.every((n) => answers[n] !== undefined)) continue;
      pending.delete(step.id);
      const blocked = step.needs.find((n) => answers[n]?.state !== 'completed' && answers[n]?.state !== 'skipped');
      if (ctx.signal.aborted) answers[step.id] = skip(step, ctx, records, 'cancelled', 'the run was interrupted');
      else if (blocked !== undefined) answers[step.id] = skip(step, ctx, records, 'skipped', `skipped: it needs ${blocked}, which ended ${answers[blocked]?.state}`);
      else if (!holds(step.when, answers)) answers[step.id] = skip(step, ctx, records, 'skipped', 'skipped: its condition (when) did not hold');
      else {
        const work = runStep(step, ctx, records, answers).then(
          (answer) => void (answers[step.id] = answer),
          (error: unknown) => void (answers[step.id] = skip(step, ctx, records, 'failed', isLiteError(error) ? error.message : String(error))),
        );
        running.set(step.id, work.finally(() => running.delete(step.id)));
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  ctx.targets.markAnswered();
  await runs.flush();
  const failed = steps.find((s) => answers[s.id]?.state !== 'completed' && answers[s.id]?.state !== 'skipped');
  const state: RunState = ctx.signal.aborted ? 'cancelled' : failed !== undefined ? 'failed' : 'completed';
  run.state = state;
  delete run.pid;
  if (failed !== undefined) run.error = `step ${failed.id} ended ${answers[failed.id]?.state}${records.get(failed.id)?.error ? `: ${records.get(failed.id)?.error}` : ''}`;
  try {
    run.output = assemble(run, answers);
  } catch (error) {
    if (!isLiteError(error)) throw error;
    run.state = 'failed';
    run.error = error.message;
  }
  runs.saveRun(run);
  emit({ type: 'run', run: run.id, context: run.contextId, state: run.state, ...(run.output ? { output: run.output } : {}), ...(run.error ? { error: run.error } : {}) });
  return { run, subtasks: [...records.values()], peak: limiter.peak };
}

/** Runs every subtask of `step` and sums them up as the step's answer. */
async function runStep(step: Step, ctx: RunContext, records: Map<string, SubtaskRecord>, answers: Readonly<Record<string, StepAnswer>>): Promise<StepAnswer> {
  const at = `steps.${step.id}`;
  if (step.each === undefined) {
    const record = records.get(step.id) ?? fresh(step.id, step.id);
    records.set(step.id, record);
    await runSubtask(makeJob(step, record, { run: ctx.run, answers }), ctx);
    return answerOfRecords(record, step, records);
  }
  const parent = records.get(step.id) ?? fresh(step.id, step.id);
  parent.items ??= await itemsOf(step.each, ctx.run, answers, ctx.stores, `${at}.each`, ctx.env, ctx.tokenRules, ctx.guard);
  parent.state = 'running';
  records.set(step.id, parent);
  await ctx.runs.saveSubtask(ctx.run.id, parent);
  ctx.emit({ type: 'step', run: ctx.run.id, key: step.id, step: step.id, items: parent.items.length, state: 'running', attempt: 0 });
  await Promise.all(
    parent.items.map(async (item, index) => {
      const key = `${step.id}.${index}`;
      const record = records.get(key) ?? { ...fresh(key, step.id), index };
      records.set(key, record);
      if (isEnded(record.state)) return;
      try {
        await runSubtask(makeJob(step, record, { run: ctx.run, answers, item, index }), ctx);
      } catch (error) {
        if (!isLiteError(error)) throw error;
        Object.assign(record, { state: 'failed', error: error.message, endedAt: new Date().toISOString() });
        await ctx.runs.saveSubtask(ctx.run.id, record);
      }
    }),
  );
  const answer = answerOfRecords(parent, step, records);
  Object.assign(parent, { state: answer.state, text: answer.text, data: answer.data, files: answer.files, tasks: answer.tasks, endedAt: new Date().toISOString() });
  const bad = itemRecords(step, parent, records).find((r) => r.state !== 'completed');
  if (bad !== undefined) parent.error = `item ${bad.index}: ${bad.error ?? bad.state}`;
  await ctx.runs.saveSubtask(ctx.run.id, parent);
  ctx.emit({ type: 'step', run: ctx.run.id, key: step.id, step: step.id, items: parent.items.length, state: parent.state, attempt: 0, ...(parent.error ? { error: parent.error } : {}) });
  return answer;
}

function itemRecords(step: Step, parent: SubtaskRecord, records: ReadonlyMap<string, SubtaskRecord>): SubtaskRecord[] {
  return (parent.items ?? []).map((_item, i) => records.get(`${step.id}.${i}`) ?? { ...fresh(`${step.id}.${i}`, step.id), index: i });
}

/** A step's answer from its records: its own, or for a fan-out its items' together. */
function answerOfRecords(record: SubtaskRecord, step: Step, records: ReadonlyMap<string, SubtaskRecord>): StepAnswer {
  if (step.each === undefined || record.state === 'skipped' || record.items === undefined) {
    return { state: record.state, text: record.text ?? '', data: record.data, files: record.files ?? [], tasks: record.tasks, ...(record.agent ? { agent: record.agent } : {}) };
  }
  const items = itemRecords(step, record, records);
  const bad = items.find((r) => r.state !== 'completed');
  return {
    state: bad === undefined ? 'completed' : bad.state,
    text: items.map((r) => r.text ?? '').filter((t) => t !== '').join('\n\n'),
    data: items.map((r) => r.data ?? null),
    files: items.flatMap((r) => r.files ?? []),
    tasks: items.flatMap((r) => r.tasks),
  };
}

function skip(step: Step, ctx: RunContext, records: Map<string, SubtaskRecord>, state: 'skipped' | 'cancelled' | 'failed', why: string): StepAnswer {
  const record = { ...fresh(step.id, step.id), state, error: why, endedAt: new Date().toISOString() };
  records.set(step.id, record);
  // Written in the background; the run waits for every write before it ends (flush).
  void ctx.runs.saveSubtask(ctx.run.id, record).catch(() => undefined);
  ctx.emit({ type: 'step', run: ctx.run.id, key: step.id, step: step.id, state, attempt: 0, error: why });
  return { state, text: '', data: undefined, files: [], tasks: [] };
}

/** The run's output: the plan's `output` rendered, else the words and files of the last steps. */
function assemble(run: RunRecord, answers: Readonly<Record<string, StepAnswer>>): { text: string; files: SavedFileRef[] } {
  const needed = new Set(run.plan.steps.flatMap((s) => s.needs));
  const last = run.plan.steps.filter((s) => !needed.has(s.id)).map((s) => s.id);
  const text = run.plan.output.text !== undefined ? render(run.plan.output.text, { run, answers }, 'output.text') : last.map((id) => answers[id]?.text ?? '').filter((t) => t !== '').join('\n\n');
  const files = (run.plan.output.files ?? last).flatMap((id) => answers[id]?.files ?? []);
  return { text, files };
}

function fresh(key: string, step: string): SubtaskRecord {
  return { key, step, state: 'waiting', attempt: 0, tasks: [] };
}

function isEnded(state: SubtaskRecord['state']): boolean {
  return state !== 'waiting' && state !== 'sending' && state !== 'running';
}

function isPlan(value: unknown): value is Plan {
  return typeof value === 'object' && value !== null && Array.isArray((value as Plan).steps) && (value as Plan).steps.every((s) => typeof s === 'object' && s !== null && 'target' in s && Array.isArray((s as Step).needs));
}
