// Reading a plan file: JSON when it says so (or starts with `{`), else YAML (yaml.ts), then
// parsed and checked, so that a plan file is refused whole before anything is sent.

import { readFileSync, statSync } from 'node:fs';
import { LiteError } from '../errors.js';
import { parseJson } from '../json-text.js';
import { checkPlan } from './plan-check.js';
import { parsePlanDocument } from './plan-parse.js';
import type { Plan } from './plan.js';
import { parseYaml } from './yaml.js';

/** The largest plan file read. */
const MAX_PLAN_BYTES = 1024 * 1024;

/** The document in plan text: JSON or YAML. */
export function readPlanText(text: string, source: string): unknown {
  const json = source.toLowerCase().endsWith('.json') || text.trimStart().startsWith('{');
  if (!json) return parseYaml(text);
  try {
    return parseJson(text, source);
  } catch (error) {
    throw new LiteError('INVALID_PLAN', `plan: ${(error as Error).message}`, { path: source });
  }
}

/** The plan in text (JSON or YAML), parsed and checked. */
export function parsePlan(text: string, source = 'plan'): Plan {
  return checkPlan(parsePlanDocument(readPlanText(text, source)));
}

/**
 * The plan in the file at `path`, parsed and checked.
 *
 * @example
 * const plan = readPlanFile('research.yaml');
 */
export function readPlanFile(path: string): Plan {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new LiteError('FILE_NOT_FOUND', `run: no plan file ${path}`, { file: path });
  }
  if (size > MAX_PLAN_BYTES) throw new LiteError('INPUT_TOO_LARGE', `run: the plan file ${path} is over ${MAX_PLAN_BYTES} bytes`);
  return parsePlan(readFileSync(path, 'utf8'), path);
}
