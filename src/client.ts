// `a2a-lite/client`: call any A2A agent — send a task and follow it to its end as `a2a-lite send`
// does, read an agent's card, or use the transports and the follower `send` is made of.
// Each type a signature here names is exported here too (test/public-api.test.ts checks it).

// Send a task and follow it, recording it in the home's ledger: `a2a-lite send` as a call.
export { sendTask, type SendRequest, type SendListener, type SendResult } from './client/send-task.js';
export type { Peer } from './client/peer.js';
export type { RemoteRecord, Taken } from './client/remote-record.js';
export type { SavedFile } from './client/downloads.js';
// Which token variables a send may use, and where (the OpenClaw plugin's rule); the hub's loop trail it carries.
export { TokenRules, type TokenBinding } from './client/token-rules.js';
export type { HubTrail } from './a2a/wire/hub-trail.js';

// Discover: read an agent's card (A2A 1.0 or 0.3) and keep it among the known agents.
export { fetchAgentCard, cacheDiscovered, type Discovered, type FetchCardOptions } from './client/discover.js';
export { fetchExtendedCard } from './client/extended-card.js';
export { readRemoteCard, toLiteCard, type RemoteCard, type RemoteSkill } from './client/remote-card.js';
export type { RemoteAccess, RemoteInterface, Binding, WireVersion } from './model/remote-access.js';
// Whether a card is signed (A2A §8.4), by which key, and whether it verifies.
export { checkCardSignature, type CardTrust, type CardTrustOptions, type KeySource } from './client/card-trust.js';
export { verifyCard, type CardVerification, type SignatureCheck, type SignatureHeader, type TrustedKeys } from './a2a/wire/card-signature.js';
export { publicKeysFrom, type PublicJwk } from './a2a/wire/card-keys.js';

// The address check a request may be given (transports, card fetches, sends, plans, the hub client).
export type { AddressGuardOptions, Refused, Resolver, ResolvedAddress } from './net/address-guard.js';

// Transports (JSON-RPC 1.0 and 0.3, HTTP+JSON) and following a task across broken streams.
export { openTransport } from './client/open-transport.js';
export type { Transport, TransportOptions, SendOptions, Outcome, Credential } from './client/transport.js';
export { sendAndFollow, followTask, type FollowOptions } from './client/remote-task.js';

// The home `sendTask` records in: the known agents and the task ledger.
export { openHomeStores, type Stores } from './home/stores.js';
export type { Home, HomeOptions } from './home/home.js';
export type { AgentDirectory, KnownAgent, CacheInfo, CacheExtra } from './home/known-agents.js';
export type { FileTaskLedger, RecordOptions, ListFilter } from './home/task-ledger.js';
export type { TaskRecord, TaskSummary, HistoryEntry, Direction, Applied } from './home/task-record.js';

// The task model both sides speak, and the grammar's states and messages it names.
export type { Task, TaskMessage, TaskStatus, TaskEvent, Part, Artifact, Role } from './model/task.js';
export type { WireState, TaskState } from './protocol/states.js';
export type { Message, KnownType } from './protocol/types.js';
export type { LiteCard, Skill, Capabilities, Framework, Mode } from './card/types.js';

// Errors: one class, with a code from a closed list (docs/errors.md).
export { LiteError, isLiteError, type ErrorCode, type ErrorDetails } from './errors.js';
export { trustAuthorities } from './net/tls.js';
