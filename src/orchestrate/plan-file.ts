// Reading a plan file: JSON when it says so (or starts with `{`), else YAML (plan-yaml.ts, which
// loads the yaml package only then), then parsed and checked, so that a plan file is refused
// whole before anything is sent.

import { readFileSync, statSync } from 'node:fs';
import { LiteError } from '../errors.js';
import { parseJson } from '../json-text.js';
import { checkPlan } from './plan-check.js';
import { parsePlanDocument } from './plan-parse.js';
import type { Plan } from './plan.js';
import { parsePlanYaml } from './plan-yaml.js';

/** The largest plan read, from a file or as text. */
export const MAX_PLAN_BYTES = 1024 * 1024;

/** The document in plan text: JSON or YAML. */
export async function readPlanText(text: string, source: string): Promise<unknown> {
  if (Buffer.byteLength(text, 'utf8') > MAX_PLAN_BYTES) throw new LiteError('INPUT_TOO_LARGE', `plan: ${source} is over ${MAX_PLAN_BYTES} bytes`);
  const json = source.toLowerCase().endsWith('.json') || text.trimStart().startsWith('{');
  if (!json) return parsePlanYaml(text);
  try {
    return parseJson(text, source);
  } catch (error) {
    throw new LiteError('INVALID_PLAN', `plan: ${(error as Error).message}`, { path: source });
  }
}

/**
 * The plan in text (JSON or YAML), parsed and checked.
 *
 * @example
 * const plan = await parsePlan('steps:\n  - id: a\n    agent: http://127.0.0.1:7331\n    text: hi\n', 'plan.yaml');
 */
export async function parsePlan(text: string, source = 'plan'): Promise<Plan> {
  return checkPlan(parsePlanDocument(await readPlanText(text, source)));
}

/**
 * The plan in the file at `path`, parsed and checked.
 *
 * @example
 * const plan = await readPlanFile('research.yaml');
 */
export async function readPlanFile(path: string): Promise<Plan> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new LiteError('FILE_NOT_FOUND', `run: no plan file ${path}`, { file: path });
  }
  if (size > MAX_PLAN_BYTES) throw new LiteError('INPUT_TOO_LARGE', `run: the plan file ${path} is over ${MAX_PLAN_BYTES} bytes`);
  return parsePlan(readFileSync(path, 'utf8'), path);
}
