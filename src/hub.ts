// `a2a-lite/hub`: run a hub (registry, NAT relay, routing, console), connect an agent to one,
// and be a client of one: agents by skill, a task sent to the best of them.
// Each type a signature here names is exported here too (test/public-api.test.ts checks it).

// The hub and its HTTP routes, served with `listen` from `a2a-lite/server`.
export { Hub, type HubOptions } from './hub/hub.js';
export { createHubHandler, hubUpgrades, type HubHandlerOptions } from './hub/hub-handler.js';
export type { CardCompat } from './a2a/server/card-shape.js';
export type { LinkOptions } from './net/websocket.js';
export type { UpgradeLimits } from './net/upgrade.js';
export type { Upgrades } from './net/node-http.js';
export type { HubEvents, HubEvent, HubListener, AgentHealth, TaskSeen } from './hub/hub-events.js';
export type { A2AHandler } from './a2a/server/http.js';
export type { HttpHandler, HttpRequest, HttpResponse, RequestHead } from './net/http-types.js';
export type { AuthOptions, Credential } from './a2a/server/auth.js';
// Credentials that can be replaced while serving (a token rotated or withdrawn), limits per
// caller, and the audit trail (docs/operations.md).
export { KeyRing, type CredentialLists, type KeyChange } from './a2a/server/key-ring.js';
export type { LimitOptions } from './a2a/server/caller-limits.js';
export type { Rate } from './a2a/server/token-bucket.js';
export type { AuditEvent, AuditSink, AuditAction } from './a2a/server/audit.js';
// Agents' card signatures (A2A §8.4): checked against the keys the hub trusts, required or not.
export type { CardSignaturePolicy, CardSignatureStatus } from './hub/card-signatures.js';
export type { PublicJwk } from './a2a/wire/card-keys.js';

// Where the hub keeps its registry.
export { MemoryHubStore, type HubStore, type HubAgent } from './hub/hub-store.js';
export { openSqliteHubStore, type SqliteHubStore } from './hub/sqlite-hub-store.js';
export { openPostgresHubStore, type PostgresHubStore, type PostgresHubStoreOptions } from './hub/postgres-hub-store.js';
export type { PoolOptions } from './store/postgres/connection.js';

// Several instances of one hub: a store they share (PostgreSQL), and a bus between them (NATS).
export type { HubClusterOptions } from './hub/cluster/hub-cluster.js';
export type { HubDirectory, AgentLink } from './hub/cluster/directory.js';
export type { LinkKind } from './hub/relay.js';
export { openBus } from './cluster/open-bus.js';
export type { Bus, BusListener, BusOptions, BusResponder } from './cluster/bus.js';

// An agent behind NAT dials in to a hub and serves its tasks down that link.
export { connectToHub, type ConnectorOptions, type HubConnection } from './hub/connector.js';

// A client of a hub: the agents it ranks for a skill, and a task sent to the best of them.
export { sendThroughHub, hubCandidates, discoverFromHub, type HubCandidate, type HubCallOptions } from './hub/hub-client.js';
export type { AddressGuardOptions, Refused, Resolver, ResolvedAddress } from './net/address-guard.js';
export type { SendRequest, SendListener, SendResult } from './client/send-task.js';
export type { Peer } from './client/peer.js';
export type { RemoteRecord, Taken } from './client/remote-record.js';
export type { SavedFile } from './client/downloads.js';
export type { TokenRules, TokenBinding } from './client/token-rules.js';
export type { RemoteAccess, RemoteInterface, Binding, WireVersion } from './model/remote-access.js';
export { openHomeStores, type Stores } from './home/stores.js';
export type { Home, HomeOptions } from './home/home.js';
export type { AgentDirectory, KnownAgent, CacheInfo, CacheExtra } from './home/known-agents.js';
export type { FileTaskLedger, RecordOptions, ListFilter } from './home/task-ledger.js';
export type { TaskRecord, TaskSummary, HistoryEntry, Direction, Applied } from './home/task-record.js';

// The trail a hub puts on each message it relays, so that no conversation loops for ever.
export { HUB_EXTENSION, HUB_TRAIL_ENV, type HubTrail } from './a2a/wire/hub-trail.js';

// The task model, and the grammar's states and messages it names.
export type { Task, TaskMessage, TaskStatus, TaskEvent, Part, Artifact, Role } from './model/task.js';
export type { WireState, TaskState } from './protocol/states.js';
export type { Message, KnownType } from './protocol/types.js';
export type { LiteCard, Skill, Capabilities, Framework, Mode } from './card/types.js';

// Errors: one class, with a code from a closed list (docs/errors.md).
export { LiteError, isLiteError, type ErrorCode, type ErrorDetails } from './errors.js';
