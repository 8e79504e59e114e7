// The a2a-lite library: the A2A-Lite grammar and cards, the stores, the agent runtime, the
// A2A server and client pieces, and the hub. `a2a-lite/protocol` and `a2a-lite/card` are the
// small pure subsets.

export * from './protocol/index.js';
export * from './card/index.js';
export * from './home/index.js';
export { LiteError, isLiteError, ERROR_TABLE, type ErrorCode, type ErrorDetails } from './errors.js';
export { findSecrets, credentialShapes, redactCredentials, type SecretFinding } from './secrets.js';

export {
  createAgent,
  Agent,
  type AgentOptions,
  type IncomingTask,
  type TaskContext,
  type ResultFile,
  type SendOptions,
  type StatusOptions,
  type TaskAccess,
  type DirectReply,
  type IncomingMessage,
} from './runtime/agent.js';
export { Retention, type PruneReport } from './runtime/retention.js';
export { parseDuration, formatDuration, type RetentionRules } from './model/retention.js';
export { receiveLite } from './lite/driver.js';
export type { LiteReceiveOptions, LiteLedger } from './lite/driver-options.js';
export type { Task, TaskMessage, Part, Artifact, TaskStatus, TaskEvent, Role } from './model/task.js';
export { MemoryTaskStore, type TaskStore, type TaskQuery, type TaskPage } from './store/task-store.js';
export { isRetentionStore, type RetentionStore } from './store/retention-store.js';

export { createA2AHandler, type A2AHandlerOptions } from './a2a/server/handler.js';
export type { A2AHandler, HttpRequest, HttpResponse } from './a2a/server/http.js';
export { toAgentCardV1, toHybridAgentCard, LITE_CARD_EXTENSION, type CardExtension } from './a2a/wire/agent-card.js';
export { retentionExtension, RETENTION_EXTENSION } from './a2a/wire/retention-extension.js';
export type { AuthOptions, Credential as ServerCredential } from './a2a/server/auth.js';
export { listen, nodeListener, type Listening, type NodeAdapterOptions } from './serve/node-http.js';
export { fetchHandler } from './serve/fetch-handler.js';
export { execHandler, type ExecOptions } from './serve/exec-handler.js';
export { startPushSender, PushSender, type PushSenderOptions } from './serve/push-sender.js';
export type { PushStore } from './store/push-store.js';
export type { PushConfig, PushConfigInput, PushConfigService, PushAuthentication } from './model/push-config.js';
export { safeFileName } from './home/safe-names.js';

export { fetchAgentCard, cacheDiscovered, type Discovered, type FetchCardOptions } from './client/discover.js';
export { readRemoteCard, toLiteCard, type RemoteCard } from './client/remote-card.js';
export type { RemoteAccess, RemoteInterface, Binding, WireVersion } from './model/remote-access.js';
export { openTransport } from './client/open-transport.js';
export type { Transport, TransportOptions, Outcome, Credential } from './client/transport.js';
export { sendAndFollow, followTask, type FollowOptions } from './client/remote-task.js';
export { sendTask, type SendRequest, type SendListener, type SendResult } from './client/send-task.js';
export { SseParser, readSse, type SseEvent } from './client/sse.js';

export { Hub, type HubOptions } from './hub/hub.js';
export { createHubHandler, hubUpgrades, type HubHandlerOptions } from './hub/hub-handler.js';
export { MemoryHubStore, type HubStore, type HubAgent } from './hub/hub-store.js';
export type { HubEvent, AgentHealth, TaskSeen } from './hub/hub-events.js';
export { connectToHub, type ConnectorOptions, type HubConnection } from './hub/connector.js';
export { sendThroughHub, hubCandidates, discoverFromHub, type HubCandidate, type HubCallOptions } from './hub/hub-client.js';
export { HUB_EXTENSION, HUB_TRAIL_ENV, type HubTrail } from './a2a/wire/hub-trail.js';
export { openHomeStores, type Stores } from './home/stores.js';
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
  type SubtaskRecord,
  type RunEvent,
  type Plan,
  type Step,
} from './orchestrate/index.js';
