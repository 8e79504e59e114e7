// Plans: read, check and run them across A2A agents, and resume a run a crash left behind.

export { runPlan, resumeRun, runStoreOf, DEFAULT_MAX_PARALLEL, type RunOptions, type RunResult } from './run-plan.js';
export { startPlan, type RunningPlan } from './run-events.js';
export { readPlanFile, parsePlan, readPlanText } from './plan-file.js';
export { parsePlanDocument } from './plan-parse.js';
export { checkPlan, resolveInputs } from './plan-check.js';
export { RunStore, type RunRecord, type RunState, type SubtaskRecord, type SubtaskState } from './run-state.js';
export type { RunEvent, StepOutline } from './events.js';
export type { Plan, Step, Target, Condition, Each, StepEnd } from './plan.js';
