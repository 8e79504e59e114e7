// `a2a-lite/server`: run an agent and serve it over A2A — the agent and its task context, the
// framework-free A2A handler with its auth, the node:http and fetch adapters, the task stores,
// the exec handler that `a2a-lite serve --exec` runs, push notifications and the chat binding.
// Each type a signature here names is exported here too (test/public-api.test.ts checks it).

// The agent: what it does with a task, and the context it does it in.
export { createAgent, Agent } from './runtime/agent.js';
export type { AgentOptions, IncomingTask, TaskContext, StatusOptions, ResultFile, IncomingMessage, DirectReply, SendOptions, TaskAccess, TaskObserver } from './runtime/agent.js';
export type { ArtifactContent } from './runtime/task-context.js';

// Replicas of one agent sharing a store (AgentOptions.cluster): the bus between them.
export type { ClusterOptions } from './runtime/agent.js';
export { openBus } from './cluster/open-bus.js';
export type { Bus, BusListener, BusOptions, BusResponder } from './cluster/bus.js';

// How long tasks are kept (`agent.retention` when the agent has rules).
export type { Retention, PruneReport } from './runtime/retention.js';
export { parseDuration, formatDuration, type RetentionRules } from './model/retention.js';

// The A2A handler: JSON-RPC 1.0 and 0.3 and HTTP+JSON, with the agent card; no sockets.
export { createA2AHandler, type A2AHandlerOptions } from './a2a/server/handler.js';
export type { A2AHandler } from './a2a/server/http.js';
export type { HttpHandler, HttpRequest, HttpResponse, RequestHead } from './net/http-types.js';
export type { AuthOptions, Credential } from './a2a/server/auth.js';
// Credentials that can be replaced while serving (a token rotated or withdrawn), limits per
// caller, and the audit trail (docs/operations.md).
export { KeyRing, type CredentialLists, type KeyChange } from './a2a/server/key-ring.js';
export type { LimitOptions } from './a2a/server/caller-limits.js';
export type { Rate } from './a2a/server/token-bucket.js';
export type { AuditEvent, AuditSink, AuditAction } from './a2a/server/audit.js';
export type { ErrorReporter } from './a2a/server/error-report.js';
export { toAgentCardV1, toHybridAgentCard, LITE_CARD_EXTENSION, type CardOptions, type CardExtension } from './a2a/wire/agent-card.js';
// The card for clients that say no A2A-Version, and the extended card for authenticated ones.
export type { CardCompat } from './a2a/server/card-shape.js';
export type { ExtendedCardSource } from './a2a/server/extended-card.js';
export type { ExtendedCard, ExtendedSkill } from './a2a/wire/extended-card.js';
export { retentionExtension, RETENTION_EXTENSION } from './a2a/wire/retention-extension.js';

// Signed cards (A2A §8.4): `createA2AHandler({ signing })` signs each card it serves.
export type { CardSigning } from './a2a/server/card-signing.js';
export { signCard, verifyCard, JWKS_PATH, type AgentCardSignature, type CardVerification, type SignatureCheck, type SignatureHeader, type TrustedKeys } from './a2a/wire/card-signature.js';
export { signingKeyFrom, publicKeysFrom, type SigningKey, type PublicJwk, type CardSigningAlg } from './a2a/wire/card-keys.js';

// Adapters: node:http, and `fetch(Request) → Response` for web-standard runtimes.
export { listen, nodeListener, type Listening, type NodeAdapterOptions, type Upgrades } from './net/node-http.js';
export { readTlsCredentials, type TlsCredentials } from './net/tls.js';
export { fetchHandler } from './serve/fetch-handler.js';
// The gRPC binding beside them (@grpc/grpc-js loads on the first call); `grpcUrl` puts it in the card.
export { serveGrpc, type GrpcServeOptions } from './serve/grpc-service.js';
export type { GrpcServer } from './net/grpc-server.js';

// Task stores: in memory, SQLite (better-sqlite3 when installed, else node:sqlite), or
// PostgreSQL for replicas that share one database (`pg` loads only when it is opened).
export { MemoryTaskStore, type TaskStore, type TaskStoreOptions, type TaskQuery, type TaskPage } from './store/task-store.js';
export { openSqliteTaskStore, type SqliteTaskStore, type SqliteTaskStoreOptions } from './store/sqlite/task-store.js';
export type { DriverName } from './store/sqlite/driver.js';
export { openPostgresTaskStore, type PostgresTaskStore, type PostgresTaskStoreOptions } from './store/postgres/task-store.js';
export type { PoolOptions } from './store/postgres/connection.js';
export { isClusterStore, type ClusterStore, type KeyClaim } from './store/cluster-store.js';
export { isRetentionStore, type RetentionStore } from './store/retention-store.js';
export type { SaveExtras, IdempotencyKey, IdempotentAnswer } from './store/task-log.js';
export type { PushStore, NewDelivery, PendingDelivery } from './store/push-store.js';

// A program as the agent: `a2a-lite serve --exec`.
export { execHandler, type ExecOptions } from './serve/exec-handler.js';

// Push notifications: webhooks the clients set, delivered with retries.
export { startPushSender, type PushSender, type PushSenderOptions } from './serve/push-sender.js';
export type { Resolver, ResolvedAddress } from './net/address-guard.js';
export type { PushConfig, PushConfigInput, PushConfigService, PushAuthentication, PushVersion } from './model/push-config.js';

// The same agent driven by A2A-Lite chat text.
export { receiveLite } from './lite/driver.js';
export type { LiteReceiveOptions, LiteLedger } from './lite/driver-options.js';
export type { FileTaskLedger, RecordOptions, ListFilter } from './home/task-ledger.js';
export type { TaskRecord, TaskSummary, HistoryEntry, Direction, Applied } from './home/task-record.js';

// The task model both sides speak, and the grammar's states and messages it names.
export type { Task, TaskMessage, TaskStatus, TaskEvent, TaskChange, Part, Artifact, Role } from './model/task.js';
export type { WireState, TaskState } from './protocol/states.js';
export type { Message, KnownType } from './protocol/types.js';
export type { LiteCard, Skill, Capabilities, Framework, Mode } from './card/types.js';
export type { Lang } from './card/render.js';

// Errors: one class, with a code from a closed list (docs/errors.md).
export { LiteError, isLiteError, type ErrorCode, type ErrorDetails } from './errors.js';
