// Checking a plan as a whole before anything is sent: every step, input and field a template,
// condition or fan-out names exists; what a step reads of another makes it wait for it; and
// `needs` has no cycle. Also the inputs a run is given, against those the plan declares.

import { LiteError } from '../errors.js';
import { credentialShapes, isSecretName, looksLikeSecretValue } from '../secrets.js';
import type { Plan, Step } from './plan.js';
import { planError } from './plan-parse.js';
import { TemplateError, referencesOf, type Reference } from './template.js';

/**
 * Checks `plan` and adds to each step's `needs` the steps it reads, so that the order of the
 * run follows from what each step uses. Throws INVALID_PLAN naming the step and field.
 */
export function checkPlan(plan: Plan): Plan {
  const ids = new Set(plan.steps.map((s) => s.id));
  for (const step of plan.steps) {
    const at = `steps.${step.id}`;
    const needs = new Set<string>();
    step.needs.forEach((need, i) => {
      if (need === step.id) throw planError(`${at}.needs[${i}]`, 'a step cannot need itself');
      if (!ids.has(need)) throw planError(`${at}.needs[${i}]`, `no step is named "${need}"`);
      needs.add(need);
    });
    const read = (template: string, path: string, inStep = true): void => {
      for (const ref of references(template, path)) checkReference(plan, step, ref, path, ids, inStep ? needs : undefined);
    };
    read(step.text, `${at}.text`);
    step.attach.forEach((a, i) => read(a, `${at}.attach[${i}]`));
    if ('agent' in step.target) checkAddress(step, step.target.agent, `${at}.agent`, read);
    if (step.fallback !== undefined && 'agent' in step.fallback) checkAddress(step, step.fallback.agent, `${at}.fallback.agent`, read);
    step.when.forEach((c, i) => {
      const path = step.when.length === 1 ? `${at}.when` : `${at}.when[${i}]`;
      if (c.step === step.id) throw planError(`${path}.step`, 'a step cannot test itself');
      if (!ids.has(c.step)) throw planError(`${path}.step`, `no step is named "${c.step}"`);
      needs.add(c.step);
    });
    const each = step.each;
    if (each?.kind === 'input' && !Object.hasOwn(plan.inputs, each.input)) throw planError(`${at}.each.input`, `the plan declares no input "${each.input}" (add it under inputs)`);
    if (each?.kind === 'data') {
      if (each.step === step.id || !ids.has(each.step)) throw planError(`${at}.each.step`, `no earlier step is named "${each.step}"`);
      needs.add(each.step);
    }
    step.needs = [...needs];
  }
  if (plan.output.text !== undefined) {
    for (const ref of references(plan.output.text, 'output.text')) checkReference(plan, undefined, ref, 'output.text', ids, undefined);
  }
  plan.output.files?.forEach((id, i) => {
    if (!ids.has(id)) throw planError(`output.files[${i}]`, `no step is named "${id}"`);
  });
  findCycle(plan.steps);
  for (const step of plan.steps) {
    for (const [field, text] of [['text', step.text], ['agent', 'agent' in step.target ? step.target.agent : ''], ...step.attach.map((a, i) => [`attach[${i}]`, a])] as const) {
      const shapes = credentialShapes(text);
      if (shapes.length > 0) throw planError(`steps.${step.id}.${field}`, `holds what looks like a credential (${shapes[0]}); a plan takes tokens from the environment: name the variable with tokenEnv`);
    }
  }
  return plan;
}

/**
 * Where a step's task goes may come from the plan's inputs and a fan-out's own list, never from
 * what an agent answered: an agent's words must not steer the run to call an address of their
 * choosing.
 */
function checkAddress(step: Step, template: string, path: string, read: (template: string, path: string) => void): void {
  read(template, path);
  for (const ref of references(template, path)) {
    if (ref.kind === 'step' || (ref.kind === 'item' && step.each?.kind === 'data')) {
      throw planError(path, 'an agent may not be chosen by what another agent answered; name it in the plan, an input or the list of each');
    }
  }
}

/**
 * Checks a plan that `serve --plan` runs for whoever sends it a task. The requester gives the
 * inputs, so no step's agent or fallback may come from them (`{{inputs.…}}`, or `{{item}}` of
 * a fan-out over an input): the requester would choose where subtasks go, with the operator's
 * tokens. Throws INVALID_PLAN naming the step and field.
 */
export function checkServedPlan(plan: Plan): void {
  for (const step of plan.steps) {
    const at = `steps.${step.id}`;
    for (const [target, path] of [[step.target, `${at}.agent`], [step.fallback, `${at}.fallback.agent`]] as const) {
      if (target === undefined || !('agent' in target)) continue;
      const chosen = references(target.agent, path).find((ref) => ref.kind === 'input' || (ref.kind === 'item' && step.each?.kind === 'input'));
      if (chosen === undefined) continue;
      const by = chosen.kind === 'input' ? `{{inputs.${chosen.name}}}` : `{{item}} of each: {input: ${(step.each as { input: string }).input}}`;
      throw planError(path, `a served plan may not take its agents from what the requester sends (${by}); name the agent in the plan, or list the agents under each`);
    }
  }
}

function references(template: string, path: string): Reference[] {
  try {
    return referencesOf(template);
  } catch (error) {
    if (error instanceof TemplateError) throw planError(path, error.message);
    throw error;
  }
}

function checkReference(plan: Plan, step: Step | undefined, ref: Reference, path: string, ids: ReadonlySet<string>, needs: Set<string> | undefined): void {
  switch (ref.kind) {
    case 'input':
      if (!Object.hasOwn(plan.inputs, ref.name)) throw planError(path, `{{inputs.${ref.name}}} names an input the plan does not declare (add it under inputs)`);
      return;
    case 'step':
      if (!ids.has(ref.step)) throw planError(path, `{{steps.${ref.step}.${ref.field}}} names no step of the plan`);
      if (step !== undefined && ref.step === step.id) throw planError(path, `a step cannot read its own ${ref.field}`);
      needs?.add(ref.step);
      return;
    case 'item':
    case 'index':
      if (step?.each === undefined) throw planError(path, `{{${ref.kind}}} is only known in a step with each`);
      if (ref.kind === 'item' && step.each.kind === 'agents' && ref.path.length > 0 && !['agent', 'name', 'url'].includes(ref.path[0] as string)) {
        throw planError(path, `{{item.${ref.path.join('.')}}}: an agent of the fan-out has the fields agent, name and url`);
      }
      return;
    case 'run':
      return;
  }
}

/** Throws naming the steps of the first cycle in `needs`. */
function findCycle(steps: readonly Step[]): void {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (id: string): void => {
    if (done.has(id)) return;
    const at = onPath.indexOf(id);
    if (at !== -1) {
      const cycle = [...onPath.slice(at), id];
      throw planError(`steps.${id}.needs`, `the steps wait for each other in a cycle: ${cycle.join(' → ')}`);
    }
    onPath.push(id);
    for (const need of byId.get(id)?.needs ?? []) visit(need);
    onPath.pop();
    done.add(id);
  };
  // Iterative over the roots; each visit is as deep as the longest chain (at most MAX_STEPS).
  for (const step of steps) visit(step.id);
}

/**
 * The inputs of a run: those given, then the plan's defaults. An input the plan does not declare,
 * or a declared one with no value and no default, is a USAGE error naming it.
 */
export function resolveInputs(plan: Plan, given: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(plan.inputs, key)) {
      const known = Object.keys(plan.inputs);
      throw new LiteError('USAGE', `run: the plan has no input "${key}"${known.length > 0 ? `; its inputs are ${known.join(', ')}` : ''}`, { input: key });
    }
    out[key] = given[key] as string;
  }
  for (const [key, input] of Object.entries(plan.inputs)) {
    if (out[key] === undefined) {
      if (input.default === undefined) throw new LiteError('USAGE', `run: the plan needs the input "${key}"; give it with --input ${key}=VALUE`, { input: key });
      out[key] = input.default;
    }
    // A run's inputs are written to its state: a token has no place there, nor in a task's words.
    const value = out[key] as string;
    const shapes = credentialShapes(value);
    if (shapes.length > 0 || (isSecretName(key) && looksLikeSecretValue(value))) {
      throw new LiteError('USAGE', `run: the input "${key}" looks like a credential${shapes.length > 0 ? ` (${shapes[0]})` : ''}; a plan takes tokens from the environment: name the variable with tokenEnv in its steps`, { input: key });
    }
  }
  return out;
}

/** The steps in an order where each comes after those it needs. */
export function inOrder(steps: readonly Step[]): Step[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const out: Step[] = [];
  const placed = new Set<string>();
  const place = (step: Step): void => {
    if (placed.has(step.id)) return;
    placed.add(step.id);
    for (const need of step.needs) place(byId.get(need) as Step);
    out.push(step);
  };
  for (const step of steps) place(step);
  return out;
}
