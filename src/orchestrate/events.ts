// What a run tells its listener as it goes (the CLI's tree view and --json lines, serve --plan's
// status updates), and what a whole run and one of its subtasks share while they work.

import type { Context } from '@opentelemetry/api';
import type { HubTrail } from '../a2a/wire/hub-trail.js';
import type { TokenRules } from '../client/token-rules.js';
import type { Stores } from '../home/stores.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import type { Limiter } from './limiter.js';
import type { RunRecord, RunState, RunStore, SavedFileRef, SubtaskState } from './run-state.js';
import type { Targets } from './targets.js';

/** One step of the plan as the run shows it at the start: enough to draw the tree. */
export interface StepOutline {
  id: string;
  needs: string[];
  each: boolean;
}

export type RunEvent =
  | { type: 'run'; run: string; context: string; state: 'started' | 'resumed'; name: string; steps: StepOutline[] }
  | { type: 'run'; run: string; context: string; state: RunState; output?: { text: string; files: SavedFileRef[] }; error?: string }
  | {
      type: 'step';
      run: string;
      /** The step's id, or `id.N` for item N of a fan-out. */
      key: string;
      step: string;
      index?: number;
      /** For a fan-out step itself: how many items it has. */
      items?: number;
      state: SubtaskState;
      attempt: number;
      agent?: string;
      task?: string;
      progress?: number;
      /** The agent's words with the state (the result's text once it ended). */
      text?: string;
      error?: string;
    };

/** What every subtask of a run shares. */
export interface RunContext {
  stores: Stores;
  runs: RunStore;
  run: RunRecord;
  targets: Targets;
  limiter: Limiter;
  env: NodeJS.ProcessEnv;
  /** The token variables the run may send, each bound to its origin (the OpenClaw plugin's); default any. */
  tokenRules?: TokenRules;
  /** The hub trail every subtask carries on (the task a served plan is running came with one). */
  trail?: HubTrail;
  signal: AbortSignal;
  emit(event: RunEvent): void;
  /** Checks the address of every request of the run (agents, the hub) when it connects. */
  guard?: AddressGuardOptions;
  /** The run's span (its trace context), while tracing is on: the parent of each step's. */
  trace?: Context;
}
