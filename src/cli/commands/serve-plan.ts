// `a2a-lite serve --plan PLAN`: what serve needs to serve a plan as an agent: the plan read and
// checked (its agents are the operator's, never the requester's), its folder, the card (the
// home's own, else one made from the plan), and the handler, whose calls pass the address check.

import { dirname, resolve } from 'node:path';
import type { LiteCard } from '../../card/types.js';
import { LiteError, isLiteError } from '../../errors.js';
import type { Stores } from '../../home/stores.js';
import { planCard, planHandler } from '../../orchestrate/plan-agent.js';
import { checkServedPlan } from '../../orchestrate/plan-check.js';
import { readPlanFile } from '../../orchestrate/plan-file.js';
import type { IncomingTask, TaskContext } from '../../runtime/task-context.js';
import { checkAddress, placeOf, type AddressGuardOptions, type Refused } from '../../net/address-guard.js';
import type { Context } from '../context.js';
import { loadOwnCard } from './card.js';

export const PLAN_OPTIONS = {
  plan: { type: 'string' },
  'max-parallel': { type: 'string' },
  'allow-private-agents': { type: 'boolean' },
} as const;

export const PLAN_HELP = `  --plan PLAN             instead of a program, run this plan (a2a-lite run --help) for each
                          task: the task's text and data are its inputs, its steps are status
                          updates, its output the result; --max-parallel N caps its subtasks.
                          Its agents are named in the plan (never by an input: such a plan is
                          refused), and only those on public addresses are called unless
  --allow-private-agents  lets them be on loopback or private addresses (link-local and
                          cloud metadata never)`;

export interface ServedPlan {
  card: LiteCard;
  onTask(task: IncomingTask, ctx: TaskContext): Promise<unknown>;
}

export interface ServedPlanFlags {
  home?: string | undefined;
  'max-parallel'?: string | undefined;
  'allow-private-agents'?: boolean | undefined;
}

/** The plan in `file` as an agent whose tasks run it, up to `--max-parallel` subtasks at once. */
export async function servedPlan(file: string, values: ServedPlanFlags, stores: Stores, context: Context): Promise<ServedPlan> {
  const path = resolve(context.cwd, file);
  const plan = await readPlanFile(path);
  checkServedPlan(plan);
  const maxParallel = values['max-parallel'];
  const parallel = maxParallel === undefined ? undefined : Number(maxParallel);
  if (parallel !== undefined && (!Number.isInteger(parallel) || parallel < 1 || parallel > 1_000)) throw new LiteError('USAGE', 'serve: --max-parallel takes a whole number from 1 to 1000');
  let card: LiteCard;
  try {
    card = loadOwnCard(values, context);
  } catch (error) {
    if (!isLiteError(error, 'CARD_NOT_FOUND')) throw error;
    card = planCard(plan);
  }
  const allowPrivate = values['allow-private-agents'] ?? false;
  const guard: AddressGuardOptions = { allowPrivateNetworks: allowPrivate, refuse: (refused) => planRefusal(refused, allowPrivate) };
  const checkUrl = (url: string): Promise<void> => checkAgentAddress(url, guard);
  return { card, onTask: planHandler({ plan, stores, root: dirname(path), source: path, env: context.env, checkUrl, guard, ...(parallel === undefined ? {} : { maxParallel: parallel }) }) };
}

/**
 * Refuses an agent URL a served plan may not call: a task from anyone makes the server call it.
 * Loopback and private addresses only with --allow-private-agents; link-local and cloud
 * metadata addresses never.
 */
async function checkAgentAddress(url: string, guard: AddressGuardOptions): Promise<void> {
  try {
    await checkAddress(url, guard);
  } catch (error) {
    if (!isLiteError(error) || error.code === 'FORBIDDEN') throw error;
    throw new LiteError('FORBIDDEN', `a served plan may not call ${JSON.stringify(url.slice(0, 200))}: ${error.message}`);
  }
}

/** A served plan's refusal, when its agent's address is checked or connected to (every hop). */
function planRefusal(refused: Refused, allowPrivate: boolean): LiteError {
  const hint = allowPrivate || !refused.allowable ? '' : '; start serve with --allow-private-agents for agents on this machine or the local network';
  return new LiteError('FORBIDDEN', `a served plan may not call ${placeOf(refused)}: it is ${/^[aeiou]/i.test(refused.reason) ? 'an' : 'a'} ${refused.reason} address${hint}`, { host: refused.host, reason: refused.reason });
}
