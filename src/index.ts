// `a2a-lite`: what no one side owns — the error class and its codes, the credential scan, the
// grammar's and the card's main calls, an agent's home (known agents and the task ledger), and
// plans run across agents. Each side has its own entry: `a2a-lite/server`, `a2a-lite/client`,
// `a2a-lite/hub`; `a2a-lite/protocol` and `a2a-lite/card` hold the whole grammar and card.

// Errors: one class, with a code from a closed list; the table gives each code its exit code,
// JSON-RPC code and HTTP status (docs/errors.md).
export { LiteError, isLiteError, ERROR_TABLE, type ErrorCode, type ErrorDetails, type ErrorRow } from './errors.js';

// Credentials never go into a message, a card or the ledger.
export { findSecrets, credentialShapes, redactCredentials, type SecretFinding } from './secrets.js';

// The A2A-Lite grammar and the task state machine (all of it in `a2a-lite/protocol`).
export { parse, parseAll } from './protocol/parse.js';
export { format, type FormatOptions } from './protocol/format.js';
export { validate, isValid } from './protocol/validate.js';
export { transition, nextStates, isTerminal, type WireState, type TaskState } from './protocol/states.js';
export type { Message, ParsedMessage, ParseWarning, WarningCode, Problem, ProblemCode, KnownType } from './protocol/types.js';

// The agent card (all of it in `a2a-lite/card`).
export { checkCard, assertCard, type CardCheck } from './card/validate.js';
export { render, type Lang } from './card/render.js';
export { parseCardReply, type CardReply } from './card/parse-reply.js';
export type { LiteCard, Skill, Capabilities, Framework, Mode, CardError } from './card/types.js';

// An agent's home: where it lives, the agents it knows, and the task ledger.
export { resolveHome, homePaths, type Home, type HomeOptions } from './home/home.js';
export { openHomeStores, type Stores } from './home/stores.js';
export { AgentDirectory, type KnownAgent, type CacheInfo, type CacheExtra } from './home/known-agents.js';
export type { RemoteAccess, RemoteInterface, Binding, WireVersion } from './model/remote-access.js';
export { FileTaskLedger, type RecordOptions, type ListFilter } from './home/task-ledger.js';
export type { TaskRecord, TaskSummary, HistoryEntry, Direction, Applied } from './home/task-record.js';

// The address check a plan's requests may be given (RunOptions.guard).
export type { AddressGuardOptions, Refused, Resolver, ResolvedAddress } from './net/address-guard.js';

// Plans: read and check one, run it across agents, resume a run a crash left behind.
export {
  runPlan,
  startPlan,
  resumeRun,
  readPlanFile,
  parsePlan,
  RunStore,
  type RunOptions,
  type RunResult,
  type RunningPlan,
  type RunRecord,
  type RunState,
  type SubtaskRecord,
  type SubtaskState,
  type RunEvent,
  type StepOutline,
  type Plan,
  type Step,
  type Target,
  type Condition,
  type Each,
  type StepEnd,
} from './orchestrate/index.js';
export type { PlanInput, HubRef } from './orchestrate/plan.js';
export type { SavedFileRef } from './orchestrate/run-state.js';
export type { TokenRules, TokenBinding } from './client/token-rules.js';
export type { HubTrail } from './a2a/wire/hub-trail.js';
