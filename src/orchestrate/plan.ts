// The shape of a plan once it has been read and checked: steps with their targets, templates,
// dependencies, conditions, fan-out and retry rules. plan-parse.ts builds it from a document,
// plan-check.ts checks it as a whole; docs/orchestration.md describes every field.

/** Where a step's task goes: an agent (URL or known id, may be templated) or a skill. */
export type Target = { agent: string } | { skill: string };

/** How a step ended, as conditions and the run state name it. */
export const STEP_ENDS = ['completed', 'failed', 'rejected', 'cancelled', 'input-required', 'auth-required', 'skipped'] as const;
export type StepEnd = (typeof STEP_ENDS)[number];

/** A test on an earlier step; every field given must hold (and `not` turns the answer round). */
export interface Condition {
  step: string;
  state?: StepEnd[];
  /** A dotted path into the step's data; with `equals` it must equal it, else it must be there and not false, null or empty. */
  data?: string;
  equals?: unknown;
  /** A regular expression the step's text must match. */
  matches?: string;
  not: boolean;
}

/** What a fan-out step runs over. */
export type Each =
  | { kind: 'list'; items: unknown[] }
  | { kind: 'input'; input: string }
  | { kind: 'agents'; skill: string }
  | { kind: 'data'; step: string; data: string };

export interface Step {
  id: string;
  target: Target;
  /** The task's words: a template (see template.ts). */
  text: string;
  /** Files to send: paths inside the plan's folder, or `{{steps.ID.files}}`; templates. */
  attach: string[];
  /** The steps this one waits for: those named in `needs` and those its templates and conditions read. */
  needs: string[];
  when: Condition[];
  each?: Each;
  /** How many times a failed attempt is tried again, and the first pause (it doubles). */
  retries: number;
  backoffMs: number;
  /** Where the task goes when every attempt at the target failed. */
  fallback?: Target;
  /** How long one attempt may take; then it is cancelled at the agent and counts as failed. */
  timeoutMs?: number;
  /** The environment variable holding the agents' token (only its name is ever stored). */
  tokenEnv?: string;
}

export interface PlanInput {
  default?: string;
  description?: string;
}

/** A hub (a2a-lite hub) that chooses the agent for a skill, and the variable holding its token. */
export interface HubRef {
  url: string;
  tokenEnv?: string;
}

export interface Plan {
  name: string;
  description?: string;
  /** Where `skill:` targets and `each: {agents: SKILL}` find their agents; else the known agents. */
  hub?: HubRef;
  inputs: Record<string, PlanInput>;
  steps: Step[];
  /** The run's result: text (a template) and the files of the steps named. */
  output: { text?: string; files?: string[] };
}

/** The most steps a plan may hold, and the most items one fan-out may run. */
export const MAX_STEPS = 500;
export const MAX_ITEMS = 1_000;

/** A step id or an input name: a letter, then letters, digits, `_` and `-`. */
export const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
