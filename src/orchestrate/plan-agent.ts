// A plan served as an agent (`a2a-lite serve --plan`): each task a client sends runs the plan,
// with the task's words and data as the plan's inputs; the client sees the steps as status
// updates with progress, and gets the plan's output (its files included) as the result. A
// cancel of the task cancels every running subtask at its agent.

import { readFileSync } from 'node:fs';
import { trailOf } from '../a2a/wire/hub-trail.js';
import { LiteError, isLiteError } from '../errors.js';
import type { Stores } from '../home/stores.js';
import { mediaTypeOf } from '../media-types.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import { PROTOCOL_VERSION, type LiteCard } from '../card/types.js';
import type { IncomingTask, ResultFile, TaskContext } from '../runtime/task-context.js';
import type { Plan } from './plan.js';
import { runPlan, type RunResult } from './run-plan.js';

export interface PlanAgentOptions {
  plan: Plan;
  /** Where the runs, the ledger and the known agents are (the serving agent's home). */
  stores: Stores;
  /** The plan's folder: local files it names are read from there. */
  root: string;
  source?: string;
  env: NodeJS.ProcessEnv;
  maxParallel?: number;
  /** Refuses an agent address the server may not call, before anything is sent there. */
  checkUrl?(url: string): Promise<void>;
  /** Checks the address of every request a run makes when it connects (see RunOptions.guard). */
  guard?: AddressGuardOptions;
}

/** The most bytes of output files put in one result. */
const MAX_RESULT_BYTES = 25 * 1024 * 1024;

/**
 * The `onTask` handler that runs `options.plan` for each task.
 *
 * @example
 * createAgent({ card: planCard(plan), store, onTask: planHandler({ plan, stores, root, env: process.env }) });
 */
export function planHandler(options: PlanAgentOptions): (task: IncomingTask, ctx: TaskContext) => Promise<void> {
  return async (task, ctx) => {
    let inputs: Record<string, string>;
    try {
      inputs = inputsOf(options.plan, task);
    } catch (error) {
      if (isLiteError(error)) return ctx.reject(error.message);
      throw error;
    }
    const total = options.plan.steps.length;
    const ended = new Set<string>();
    let reports = Promise.resolve();
    let result: RunResult;
    try {
      result = await runPlan(options.plan, {
        stores: options.stores,
        root: options.root,
        env: options.env,
        inputs,
        signal: ctx.signal,
        ...(options.source !== undefined ? { source: options.source } : {}),
        ...(options.maxParallel !== undefined ? { maxParallel: options.maxParallel } : {}),
        ...(options.checkUrl !== undefined ? { checkUrl: options.checkUrl } : {}),
        ...(options.guard !== undefined ? { guard: options.guard } : {}),
        // The run's span is a child of the request that started the task.
        ...(ctx.trace !== undefined ? { trace: ctx.trace } : {}),
        // The hub's loop trail the task came with goes on every subtask: a plan that reaches itself is a loop.
        trail: trailOf(task.message.metadata),
        onEvent: (event) => {
          if (event.type !== 'step' || event.index !== undefined) return;
          const done = ['completed', 'failed', 'rejected', 'cancelled', 'skipped', 'input-required', 'auth-required'].includes(event.state);
          if (done) ended.add(event.key);
          if (ctx.signal.aborted) return;
          const words = `step ${event.key}: ${event.state}${event.error ? ` (${event.error})` : ''}`;
          // Reports go out in order, one after the other.
          reports = reports.then(() => ctx.status('working', { message: words, progress: Math.round((100 * ended.size) / total) })).catch(() => undefined);
        },
      });
    } catch (error) {
      // A plan that cannot start with these inputs (an agent gone from the cache, say).
      await reports;
      if (isLiteError(error)) return ctx.fail(error.message);
      throw error;
    }
    await reports;
    if (ctx.signal.aborted) return;
    const { run } = result;
    if (run.state !== 'completed') return ctx.fail(`the plan ${run.state}: ${run.error ?? 'a step did not complete'} (run ${run.id})`);
    const files: ResultFile[] = [];
    let bytes = 0;
    for (const file of run.output?.files ?? []) {
      if (file.path === undefined) {
        if (file.url !== undefined) files.push({ name: file.name, url: file.url });
        continue;
      }
      const content = readFileSync(file.path);
      bytes += content.length;
      if (bytes > MAX_RESULT_BYTES) return ctx.fail(`the plan's output files are over ${MAX_RESULT_BYTES} bytes`);
      files.push({ name: file.name, mediaType: mediaTypeOf(file.name), bytes: content });
    }
    return ctx.complete({ text: run.output?.text ?? '', files, data: { run: run.id } });
  };
}

/**
 * The plan's inputs from a task: the fields of its data part, and its text as the input named
 * `text`, or as the plan's only input when it has just one.
 */
export function inputsOf(plan: Plan, task: IncomingTask): Record<string, string> {
  const inputs: Record<string, string> = {};
  const data = task.message.parts.find((p) => p.kind === 'data');
  if (data?.kind === 'data' && typeof data.data === 'object' && data.data !== null && !Array.isArray(data.data)) {
    for (const [key, value] of Object.entries(data.data)) {
      if (Object.hasOwn(plan.inputs, key)) inputs[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  const names = Object.keys(plan.inputs);
  const forText = Object.hasOwn(plan.inputs, 'text') ? 'text' : names.length === 1 ? names[0] : undefined;
  if (forText !== undefined && inputs[forText] === undefined && task.text.trim() !== '') inputs[forText] = task.text.trim();
  const missing = names.filter((n) => inputs[n] === undefined && plan.inputs[n]?.default === undefined);
  if (missing.length > 0) throw new LiteError('USAGE', `this plan needs ${missing.map((n) => `"${n}"`).join(', ')}: send them as fields of a data part${forText === undefined ? '' : `, or "${forText}" as the text`}`);
  return inputs;
}

/** A card for a plan served without one of its own: the plan as its one skill. */
export function planCard(plan: Plan): LiteCard {
  const id = plan.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'plan';
  return {
    protocol: PROTOCOL_VERSION,
    agent: { id, name: plan.name, framework: 'other' },
    description: plan.description ?? `Runs the plan "${plan.name}" across A2A agents.`,
    skills: [{ id, name: plan.name, description: plan.description ?? `Runs the plan "${plan.name}": ${plan.steps.map((s) => s.id).join(', ')}.`, tags: ['plan'] }],
    capabilities: { streaming: true, asyncTasks: true, fileTransfer: true },
  };
}
