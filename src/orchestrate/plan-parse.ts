// Reading a plan document (the value a JSON or YAML file holds) into a Plan, field by field:
// every mistake is one INVALID_PLAN error naming the step and the field, and unknown fields are
// refused so that a misspelt `neds:` is not silently ignored. plan-check.ts then checks the
// plan as a whole (references, cycles).

import { LiteError } from '../errors.js';
import { MAX_ITEMS, MAX_STEPS, NAME, STEP_ENDS, type Condition, type Each, type HubRef, type Plan, type PlanInput, type Step, type StepEnd, type Target } from './plan.js';

/** The error for a mistake at `path` (`steps.gather.when.state`), said in a sentence. */
export function planError(path: string, problem: string): LiteError {
  return new LiteError('INVALID_PLAN', `plan: ${path}: ${problem}`, { path });
}

type Fields = Record<string, unknown>;

function object(value: unknown, path: string, allowed: readonly string[]): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw planError(path, `must be a mapping (key: value), not ${kindOf(value)}`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw planError(`${path}.${safeKey(key)}`, `unknown field; the fields here are ${allowed.join(', ')}`);
  }
  return value as Fields;
}

function text(value: unknown, path: string, max = 100_000): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw planError(path, `must be text, not ${kindOf(value)}`);
  if (value.length > max) throw planError(path, `is longer than ${max} characters`);
  return value;
}

function name(value: unknown, path: string, what: string): string {
  const given = text(value, path, 64);
  if (!NAME.test(given)) throw planError(path, `${JSON.stringify(given)} is not a ${what}: a letter, then letters, digits, _ or -`);
  return given;
}

function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw planError(path, `must be a list, not ${kindOf(value)}`);
  if (value.length > max) throw planError(path, `holds more than ${max} entries`);
  return value;
}

function seconds(value: unknown, path: string, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) throw planError(path, `must be a number of seconds from 0 to ${max}`);
  return value;
}

/**
 * The plan a document holds, with every field checked on its own.
 *
 * @example
 * parsePlanDocument({ steps: [{ id: 'a', agent: 'http://127.0.0.1:7331', text: 'hi' }] });
 */
export function parsePlanDocument(document: unknown): Plan {
  const doc = object(document, 'plan', ['name', 'description', 'hub', 'inputs', 'steps', 'output']);
  const plan: Plan = { name: doc.name === undefined ? 'plan' : text(doc.name, 'name', 200), inputs: inputsOf(doc.inputs), steps: [], output: {} };
  if (doc.description !== undefined) plan.description = text(doc.description, 'description', 2_000);
  if (doc.hub !== undefined) plan.hub = hubOf(doc.hub);
  if (doc.steps === undefined) throw planError('steps', 'a plan needs a list of steps');
  const steps = list(doc.steps, 'steps', MAX_STEPS);
  if (steps.length === 0) throw planError('steps', 'a plan needs at least one step');
  const seen = new Set<string>();
  steps.forEach((value, at) => {
    const raw = typeof value === 'object' && value !== null ? (value as Fields).id : undefined;
    const label = typeof raw === 'string' && NAME.test(raw) ? `steps.${raw}` : `steps[${at}]`;
    const step = stepOf(value, label);
    if (seen.has(step.id)) throw planError(`${label}.id`, `two steps are named "${step.id}"`);
    seen.add(step.id);
    plan.steps.push(step);
  });
  if (doc.output !== undefined) plan.output = outputOf(doc.output);
  return plan;
}

function inputsOf(value: unknown): Record<string, PlanInput> {
  const inputs: Record<string, PlanInput> = {};
  if (value === undefined) return inputs;
  if (Array.isArray(value)) {
    list(value, 'inputs', 100).forEach((n, at) => (inputs[name(n, `inputs[${at}]`, 'input name')] = {}));
    return inputs;
  }
  if (typeof value !== 'object' || value === null) throw planError('inputs', `must be a list of names or a mapping of name to default, not ${kindOf(value)}`);
  for (const [key, given] of Object.entries(value)) {
    const path = `inputs.${safeKey(key)}`;
    name(key, path, 'input name');
    if (given === null) inputs[key] = {};
    else if (typeof given !== 'object') inputs[key] = { default: text(given, path) };
    else {
      const fields = object(given, path, ['default', 'description']);
      const input: PlanInput = {};
      if (fields.default !== undefined && fields.default !== null) input.default = text(fields.default, `${path}.default`);
      if (fields.description !== undefined) input.description = text(fields.description, `${path}.description`, 2_000);
      inputs[key] = input;
    }
  }
  return inputs;
}

const STEP_FIELDS = ['id', 'agent', 'skill', 'text', 'attach', 'needs', 'when', 'each', 'retries', 'backoff', 'fallback', 'timeout', 'tokenEnv'] as const;

function stepOf(value: unknown, path: string): Step {
  const fields = object(value, path, STEP_FIELDS);
  if (fields.id === undefined) throw planError(`${path}.id`, 'every step needs an id');
  const id = name(fields.id, `${path}.id`, 'step id');
  const step: Step = { id, target: targetOf(fields, path), text: '', attach: [], needs: [], when: [], retries: 0, backoffMs: 1_000 };
  if (fields.text !== undefined) step.text = text(fields.text, `${path}.text`);
  if (fields.attach !== undefined) step.attach = list(fields.attach, `${path}.attach`, 100).map((a, at) => text(a, `${path}.attach[${at}]`, 4_096));
  if (fields.text === undefined && step.attach.length === 0) throw planError(`${path}.text`, 'a step needs text to send (or files to attach)');
  if (fields.needs !== undefined) {
    const needs = typeof fields.needs === 'string' ? [fields.needs] : list(fields.needs, `${path}.needs`, MAX_STEPS);
    step.needs = needs.map((n, at) => name(n, `${path}.needs[${at}]`, 'step id'));
  }
  if (fields.when !== undefined) {
    const when = Array.isArray(fields.when) ? list(fields.when, `${path}.when`, 20) : [fields.when];
    step.when = when.map((c, at) => conditionOf(c, Array.isArray(fields.when) ? `${path}.when[${at}]` : `${path}.when`));
  }
  if (fields.each !== undefined) step.each = eachOf(fields.each, `${path}.each`);
  if (fields.retries !== undefined) {
    if (typeof fields.retries !== 'number' || !Number.isInteger(fields.retries) || fields.retries < 0 || fields.retries > 10) throw planError(`${path}.retries`, 'must be a whole number from 0 to 10');
    step.retries = fields.retries;
  }
  if (fields.backoff !== undefined) step.backoffMs = seconds(fields.backoff, `${path}.backoff`, 600) * 1000;
  if (fields.timeout !== undefined) {
    step.timeoutMs = seconds(fields.timeout, `${path}.timeout`, 86_400) * 1000;
    if (step.timeoutMs === 0) throw planError(`${path}.timeout`, 'must be more than 0 seconds');
  }
  if (fields.fallback !== undefined) step.fallback = fallbackOf(fields.fallback, `${path}.fallback`);
  if (fields.tokenEnv !== undefined) {
    const env = text(fields.tokenEnv, `${path}.tokenEnv`, 128);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(env)) throw planError(`${path}.tokenEnv`, 'must be the name of an environment variable (never the token itself)');
    step.tokenEnv = env;
  }
  return step;
}

function targetOf(fields: Fields, path: string): Target {
  const hasAgent = fields.agent !== undefined;
  const hasSkill = fields.skill !== undefined;
  if (hasAgent === hasSkill && fields.each === undefined) throw planError(`${path}.agent`, hasAgent ? 'give agent or skill, not both' : 'name the agent (a URL or a known id) or a skill');
  if (hasAgent) return { agent: target(fields.agent, `${path}.agent`) };
  if (hasSkill) return { skill: text(fields.skill, `${path}.skill`, 200) };
  // A fan-out over agents takes each agent from its list.
  return { agent: '{{item.agent}}' };
}

function target(value: unknown, path: string): string {
  const given = text(value, path, 2_048).trim();
  if (given === '') throw planError(path, 'is empty');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(given) && !/^https?:\/\//i.test(given)) throw planError(path, `${JSON.stringify(given.slice(0, 40))} is not an http or https URL`);
  return given;
}

function fallbackOf(value: unknown, path: string): Target {
  if (typeof value === 'string') return { agent: target(value, path) };
  const fields = object(value, path, ['agent', 'skill']);
  if ((fields.agent === undefined) === (fields.skill === undefined)) throw planError(path, 'give the fallback an agent or a skill');
  return fields.agent !== undefined ? { agent: target(fields.agent, `${path}.agent`) } : { skill: text(fields.skill, `${path}.skill`, 200) };
}

function conditionOf(value: unknown, path: string): Condition {
  const fields = object(value, path, ['step', 'state', 'data', 'equals', 'matches', 'not']);
  if (fields.step === undefined) throw planError(`${path}.step`, 'a condition names the step it tests');
  const condition: Condition = { step: name(fields.step, `${path}.step`, 'step id'), not: false };
  if (fields.state !== undefined) {
    const states = typeof fields.state === 'string' ? [fields.state] : list(fields.state, `${path}.state`, STEP_ENDS.length);
    condition.state = states.map((s, at) => {
      const state = text(s, `${path}.state${typeof fields.state === 'string' ? '' : `[${at}]`}`, 40);
      if (!(STEP_ENDS as readonly string[]).includes(state)) throw planError(`${path}.state`, `"${state}" is not how a step ends; one of ${STEP_ENDS.join(', ')}`);
      return state as StepEnd;
    });
  }
  if (fields.data !== undefined) condition.data = dataPath(fields.data, `${path}.data`);
  if (fields.equals !== undefined) {
    if (condition.data === undefined) throw planError(`${path}.equals`, 'equals compares a data field: give data too');
    condition.equals = fields.equals;
  }
  if (fields.matches !== undefined) {
    const pattern = text(fields.matches, `${path}.matches`, 1_000);
    try {
      new RegExp(pattern, 'u');
    } catch {
      throw planError(`${path}.matches`, 'is not a regular expression');
    }
    condition.matches = pattern;
  }
  if (fields.not !== undefined) {
    if (typeof fields.not !== 'boolean') throw planError(`${path}.not`, 'must be true or false');
    condition.not = fields.not;
  }
  if (condition.state === undefined && condition.data === undefined && condition.matches === undefined) condition.state = ['completed'];
  return condition;
}

function eachOf(value: unknown, path: string): Each {
  if (Array.isArray(value)) {
    const items = list(value, path, MAX_ITEMS);
    if (items.length === 0) throw planError(path, 'an empty list leaves nothing to do');
    return { kind: 'list', items };
  }
  const fields = object(value, path, ['input', 'agents', 'step', 'data']);
  if (fields.input !== undefined) return { kind: 'input', input: name(fields.input, `${path}.input`, 'input name') };
  if (fields.agents !== undefined) return { kind: 'agents', skill: text(fields.agents, `${path}.agents`, 200) };
  if (fields.step !== undefined) {
    if (fields.data === undefined) throw planError(`${path}.data`, 'name the data field of the step that holds the list');
    return { kind: 'data', step: name(fields.step, `${path}.step`, 'step id'), data: dataPath(fields.data, `${path}.data`) };
  }
  throw planError(path, 'give a list, or {input: NAME}, {agents: SKILL} or {step: ID, data: FIELD}');
}

function hubOf(value: unknown): HubRef {
  const fields = typeof value === 'string' ? { url: value } : object(value, 'hub', ['url', 'tokenEnv']);
  const url = target(fields.url, typeof value === 'string' ? 'hub' : 'hub.url');
  if (!/^https?:\/\//i.test(url)) throw planError(typeof value === 'string' ? 'hub' : 'hub.url', 'must be the http or https URL of an a2a-lite hub');
  const hub: HubRef = { url };
  if (fields.tokenEnv !== undefined) {
    const env = text(fields.tokenEnv, 'hub.tokenEnv', 128);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(env)) throw planError('hub.tokenEnv', 'must be the name of an environment variable (never the token itself)');
    hub.tokenEnv = env;
  }
  return hub;
}

function outputOf(value: unknown): Plan['output'] {
  if (typeof value === 'string') return { text: text(value, 'output') };
  const fields = object(value, 'output', ['text', 'files']);
  const output: Plan['output'] = {};
  if (fields.text !== undefined) output.text = text(fields.text, 'output.text');
  if (fields.files !== undefined) output.files = list(fields.files, 'output.files', MAX_STEPS).map((n, at) => name(n, `output.files[${at}]`, 'step id'));
  return output;
}

function dataPath(value: unknown, path: string): string {
  const given = text(value, path, 200);
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(given)) throw planError(path, `${JSON.stringify(given.slice(0, 40))} is not a dotted field path such as verdict or result.score`);
  return given;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `${typeof value === 'string' ? 'text' : typeof value}`;
}

/** A key as it may be shown: printable and short. */
function safeKey(key: string): string {
  const shown = key.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
  return /^[A-Za-z0-9_-]+$/.test(shown) ? shown : JSON.stringify(shown);
}
