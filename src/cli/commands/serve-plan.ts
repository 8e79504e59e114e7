// `a2a-lite serve --plan PLAN`: what serve needs to serve a plan as an agent: the plan read and
// checked, its folder, the card (the home's own, else one made from the plan), and the handler.

import { dirname, resolve } from 'node:path';
import type { LiteCard } from '../../card/types.js';
import { LiteError, isLiteError } from '../../errors.js';
import type { Stores } from '../../home/stores.js';
import { planCard, planHandler } from '../../orchestrate/plan-agent.js';
import { readPlanFile } from '../../orchestrate/plan-file.js';
import type { IncomingTask, TaskContext } from '../../runtime/task-context.js';
import type { Context } from '../context.js';
import { loadOwnCard } from './card.js';

export interface ServedPlan {
  card: LiteCard;
  onTask(task: IncomingTask, ctx: TaskContext): Promise<unknown>;
}

/** The plan in `file` as an agent whose tasks run it, up to `maxParallel` subtasks at once. */
export function servedPlan(file: string, maxParallel: string | undefined, values: { home?: string | undefined }, stores: Stores, context: Context): ServedPlan {
  const path = resolve(context.cwd, file);
  const plan = readPlanFile(path);
  const parallel = maxParallel === undefined ? undefined : Number(maxParallel);
  if (parallel !== undefined && (!Number.isInteger(parallel) || parallel < 1 || parallel > 1_000)) throw new LiteError('USAGE', 'serve: --max-parallel takes a whole number from 1 to 1000');
  let card: LiteCard;
  try {
    card = loadOwnCard(values, context);
  } catch (error) {
    if (!isLiteError(error, 'CARD_NOT_FOUND')) throw error;
    card = planCard(plan);
  }
  return { card, onTask: planHandler({ plan, stores, root: dirname(path), source: path, env: context.env, ...(parallel === undefined ? {} : { maxParallel: parallel }) }) };
}
