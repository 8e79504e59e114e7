// The package's public face, pinned: for each entry point, the names it exports (the values a
// program gets at run time, and the types), as a user meets them — the built package imported
// by its name, so that an entry missing from package.json `exports` fails too — and every type
// a public signature names is exported from the same entry. A change to the API is a change to
// this list, made on purpose; an internal can never leak into it by accident.
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXPORTS, ROOT, entryName, readFaces, type EntryFace } from './declarations.js';

const API: Record<string, { values: string[]; types: string[] }> = {
  'a2a-lite': {
    values: [
      'AgentDirectory', 'ERROR_TABLE', 'FileTaskLedger', 'LiteError', 'RunStore', 'assertCard', 'checkCard',
      'credentialShapes', 'findSecrets', 'format', 'homePaths', 'isLiteError', 'isTerminal', 'isValid',
      'nextStates', 'openHomeStores', 'parse', 'parseAll', 'parseCardReply', 'parsePlan', 'readPlanFile',
      'redactCredentials', 'render', 'resolveHome', 'resumeRun', 'runPlan', 'startPlan', 'transition',
      'validate',
    ],
    types: [
      'AddressGuardOptions', 'Applied', 'Binding', 'CacheExtra', 'CacheInfo', 'Capabilities', 'CardCheck', 'CardError', 'CardReply',
      'Condition', 'Direction', 'Each', 'ErrorCode', 'ErrorDetails', 'ErrorRow', 'FormatOptions',
      'Framework', 'HistoryEntry', 'Home', 'HomeOptions', 'HubRef', 'HubTrail', 'KnownAgent', 'KnownType', 'Lang',
      'ListFilter', 'LiteCard', 'Message', 'Mode', 'ParseWarning', 'ParsedMessage', 'Plan', 'PlanInput',
      'Problem', 'ProblemCode', 'RecordOptions', 'Refused', 'RemoteAccess', 'RemoteInterface', 'ResolvedAddress', 'Resolver', 'RunEvent', 'RunOptions',
      'RunRecord', 'RunResult', 'RunState', 'RunningPlan', 'SavedFileRef', 'SecretFinding', 'Skill', 'Step',
      'StepEnd', 'StepOutline', 'Stores', 'SubtaskRecord', 'SubtaskState', 'Target', 'TaskRecord',
      'TaskState', 'TaskSummary', 'TokenBinding', 'TokenRules', 'WarningCode', 'WireState', 'WireVersion',
    ],
  },
  'a2a-lite/server': {
    values: [
      'Agent', 'JWKS_PATH', 'KeyRing', 'LITE_CARD_EXTENSION', 'LiteError', 'MemoryTaskStore', 'RETENTION_EXTENSION',
      'createA2AHandler', 'createAgent', 'execHandler', 'fetchHandler', 'formatDuration', 'isClusterStore', 'isLiteError',
      'isRetentionStore', 'listen', 'nodeListener', 'openBus', 'openPostgresTaskStore', 'openSqliteTaskStore', 'parseDuration', 'publicKeysFrom', 'readTlsCredentials', 'receiveLite',
      'retentionExtension', 'serveGrpc', 'signCard', 'signingKeyFrom', 'startPushSender', 'toAgentCardV1', 'toHybridAgentCard', 'verifyCard',
    ],
    types: [
      'A2AHandler', 'A2AHandlerOptions', 'AgentCardSignature', 'AgentOptions', 'Applied', 'Artifact', 'ArtifactContent',
      'AuditAction', 'AuditEvent', 'AuditSink', 'AuthOptions', 'Bus', 'BusListener', 'BusOptions', 'BusResponder', 'Capabilities', 'CardCompat', 'CardExtension', 'CardOptions',
      'CardSigning', 'CardSigningAlg', 'CardVerification', 'ClusterOptions', 'ClusterStore', 'Credential', 'CredentialLists', 'DirectReply',
      'Direction', 'DriverName', 'ErrorCode', 'ErrorDetails', 'ErrorReporter', 'ExecOptions', 'ExtendedCard', 'ExtendedCardSource', 'ExtendedSkill',
      'FileTaskLedger', 'Framework', 'GrpcServeOptions', 'GrpcServer', 'HistoryEntry', 'HttpHandler', 'HttpRequest', 'HttpResponse', 'IdempotencyKey',
      'IdempotentAnswer', 'IncomingMessage', 'IncomingTask', 'KeyChange', 'KeyClaim', 'KnownType', 'Lang', 'LimitOptions', 'ListFilter', 'Listening',
      'LiteCard', 'LiteLedger', 'LiteReceiveOptions', 'Message', 'Mode', 'NewDelivery', 'NodeAdapterOptions',
      'Part', 'PendingDelivery', 'PoolOptions', 'PostgresTaskStore', 'PostgresTaskStoreOptions', 'PruneReport', 'PublicJwk', 'PushAuthentication', 'PushConfig', 'PushConfigInput',
      'PushConfigService', 'PushSender', 'PushSenderOptions', 'PushStore', 'PushVersion', 'Rate', 'RecordOptions',
      'RequestHead', 'ResolvedAddress', 'Resolver', 'ResultFile', 'Retention', 'RetentionRules', 'RetentionStore', 'Role',
      'SaveExtras', 'SendOptions', 'SignatureCheck', 'SignatureHeader', 'SigningKey', 'Skill', 'SqliteTaskStore', 'SqliteTaskStoreOptions', 'StatusOptions',
      'Task', 'TaskAccess', 'TaskChange', 'TaskContext', 'TaskEvent', 'TaskMessage', 'TaskObserver',
      'TaskPage', 'TaskQuery', 'TaskRecord', 'TaskState', 'TaskStatus', 'TaskStore', 'TaskStoreOptions',
      'TaskSummary', 'TlsCredentials', 'TrustedKeys', 'Upgrades', 'WireState',
    ],
  },
  'a2a-lite/client': {
    values: [
      'LiteError', 'TokenRules', 'cacheDiscovered', 'checkCardSignature', 'fetchAgentCard', 'fetchExtendedCard', 'followTask', 'isLiteError',
      'openHomeStores', 'openTransport', 'publicKeysFrom', 'readRemoteCard', 'sendAndFollow', 'sendTask', 'toLiteCard', 'trustAuthorities', 'verifyCard',
    ],
    types: [
      'AddressGuardOptions', 'AgentDirectory', 'Applied', 'Artifact', 'Binding', 'CacheExtra', 'CacheInfo', 'Capabilities',
      'CardTrust', 'CardTrustOptions', 'CardVerification', 'Credential', 'Direction', 'Discovered', 'ErrorCode', 'ErrorDetails', 'FetchCardOptions',
      'FileTaskLedger', 'FollowOptions', 'Framework', 'HistoryEntry', 'Home', 'HomeOptions', 'HubTrail', 'KeySource', 'KnownAgent',
      'KnownType', 'ListFilter', 'LiteCard', 'Message', 'Mode', 'Outcome', 'Part', 'Peer', 'PublicJwk', 'RecordOptions', 'Refused',
      'RemoteAccess', 'RemoteCard', 'RemoteInterface', 'RemoteRecord', 'RemoteSkill', 'ResolvedAddress', 'Resolver', 'Role', 'SavedFile',
      'SendListener', 'SendOptions', 'SendRequest', 'SendResult', 'SignatureCheck', 'SignatureHeader', 'Skill', 'Stores', 'Taken', 'Task',
      'TaskEvent', 'TaskMessage', 'TaskRecord', 'TaskState', 'TaskStatus', 'TaskSummary', 'TokenBinding',
      'Transport', 'TransportOptions', 'TrustedKeys', 'WireState', 'WireVersion',
    ],
  },
  'a2a-lite/hub': {
    values: [
      'HUB_EXTENSION', 'HUB_TRAIL_ENV', 'Hub', 'KeyRing', 'LiteError', 'MemoryHubStore', 'connectToHub', 'createHubHandler',
      'discoverFromHub', 'hubCandidates', 'hubUpgrades', 'isLiteError', 'openBus', 'openHomeStores',
      'openPostgresHubStore', 'openSqliteHubStore', 'sendThroughHub',
    ],
    types: [
      'A2AHandler', 'AddressGuardOptions', 'AgentDirectory', 'AgentHealth', 'AgentLink', 'Applied', 'Artifact',
      'AuditAction', 'AuditEvent', 'AuditSink', 'AuthOptions', 'Binding', 'Bus', 'BusListener', 'BusOptions', 'BusResponder', 'CacheExtra', 'CacheInfo', 'Capabilities', 'CardCompat', 'CardSignaturePolicy', 'CardSignatureStatus',
      'ConnectorOptions', 'Credential', 'CredentialLists', 'Direction', 'ErrorCode', 'ErrorDetails', 'FileTaskLedger', 'Framework',
      'HistoryEntry', 'Home', 'HomeOptions', 'HttpHandler', 'HttpRequest', 'HttpResponse', 'HubAgent',
      'HubCallOptions', 'HubCandidate', 'HubClusterOptions', 'HubConnection', 'HubDirectory', 'HubEvent', 'HubEvents',
      'HubHandlerOptions', 'HubListener', 'HubOptions', 'HubStore', 'HubTrail', 'KeyChange', 'KnownAgent', 'KnownType', 'LimitOptions', 'LinkKind',
      'LinkOptions', 'ListFilter', 'LiteCard', 'Message', 'Mode', 'Part', 'Peer', 'PoolOptions',
      'PostgresHubStore', 'PostgresHubStoreOptions', 'PublicJwk', 'Rate', 'RecordOptions', 'Refused', 'RemoteAccess', 'RemoteInterface',
      'RemoteRecord', 'RequestHead', 'ResolvedAddress', 'Resolver', 'Role', 'SavedFile', 'SendListener',
      'SendRequest', 'SendResult', 'Skill', 'SqliteHubStore', 'Stores', 'Taken', 'Task', 'TaskEvent', 'TaskMessage',
      'TaskRecord', 'TaskSeen', 'TaskState', 'TaskStatus', 'TaskSummary', 'TokenBinding', 'TokenRules',
      'UpgradeLimits', 'Upgrades', 'WireState', 'WireVersion',
    ],
  },
  'a2a-lite/protocol': {
    values: [
      'CORE_STATES', 'EXTENSION_STATES', 'INITIAL_STATE', 'KNOWN_TYPES', 'PRIORITIES', 'TASK_ID',
      'TYPE_RULES', 'WIRE_STATES', 'canonicalBody', 'format', 'isInterrupted', 'isTaskState', 'isTerminal',
      'isValid', 'isWireState', 'messageOf', 'nextStates', 'parse', 'parseAll', 'progressValue',
      'transition', 'validate',
    ],
    types: [
      'FormatOptions', 'KnownType', 'Message', 'ParseWarning', 'ParsedMessage', 'Problem', 'ProblemCode',
      'TaskState', 'TypeRule', 'WarningCode', 'WireState',
    ],
  },
  'a2a-lite/card': {
    values: [
      'AGENT_ID', 'FRAMEWORKS', 'MODES', 'PROTOCOL_VERSION', 'SKILL_ID', 'assertCard', 'checkCard',
      'findSecrets', 'parseCardReply', 'render', 'slug',
    ],
    types: [
      'Capabilities', 'CardCheck', 'CardError', 'CardReply', 'Framework', 'Lang', 'LiteCard', 'Mode',
      'SecretFinding', 'Skill',
    ],
  },
  'a2a-lite/openclaw': {
    values: [
      'PLUGIN_ID', 'TOOL_NAMES', 'default', 'register', 'toolsFor',
    ],
    types: [
      'AgentTool', 'BeforeDispatchContext', 'BeforeDispatchEvent', 'BeforeDispatchResult', 'HostApi',
      'HostLogger', 'HostService', 'MessageContext', 'MessageSendingEvent', 'MessageSendingResult',
      'PluginConfig', 'TokenBinding', 'ToolContext', 'ToolResult',
    ],
  },
};

/**
 * Each entry's run-time names, imported by package name from a program in the package's folder
 * (Node resolves a package's own name through its `exports`), or why it could not be imported.
 */
function importedNames(): Record<string, string[] | string> {
  const program = `const names = {};
    for (const entry of ${JSON.stringify(Object.keys(API))}) {
      try { names[entry] = Object.keys(await import(entry)).sort(); } catch (error) { names[entry] = String(error); }
    }
    process.stdout.write(JSON.stringify(names));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, string[] | string>;
}

/** The entry's face; failing, with the reason, when package.json `exports` does not name it. */
function faceOf(entry: string): EntryFace {
  const face = faces.get(entry);
  expect(face, `${entry} in package.json exports`).toBeDefined();
  return face as EntryFace;
}

let faces: Map<string, EntryFace>;
let errors: string[];
let imported: Record<string, string[] | string>;
beforeAll(() => {
  ({ faces, errors } = readFaces());
  imported = importedNames();
}, 60_000);

describe('the public API', () => {
  it('pins every entry point package.json exports, and no other', () => {
    expect(Object.keys(EXPORTS).map(entryName).sort()).toEqual(Object.keys(API).sort());
  });

  it.each(Object.entries(API))('%s gives a program exactly the values pinned', (entry, pinned) => {
    expect(imported[entry]).toEqual(pinned.values);
  });

  it.each(Object.entries(API))('%s declares exactly the values and types pinned', (entry, pinned) => {
    const face = faceOf(entry);
    expect(face.values).toEqual(pinned.values);
    expect(face.names.filter((name) => !face.values.includes(name))).toEqual(pinned.types);
  });

  it.each(Object.keys(API))('%s exports every type its public signatures name', (entry) => {
    expect(faceOf(entry).unexported).toEqual([]);
  });

  it('ships declarations a strict project compiles without skipping them', () => {
    expect(errors).toEqual([]);
  });

  it('keeps the lists sorted and apart, so that a diff reads as a change of the API', () => {
    for (const { values, types } of Object.values(API)) {
      expect(values).toEqual([...values].sort());
      expect(types).toEqual([...types].sort());
      expect(values.filter((name) => types.includes(name))).toEqual([]);
    }
  });

  it('exports no demo fixture and no file internal from any entry', () => {
    const names = [...faces.values()].flatMap((face) => face.names);
    for (const internal of ['jiajiaCard', 'mexicoCard', 'writeFileAtomic', 'createFileAtomic', 'encodeName', 'SseParser', 'readSse', 'safeFileName', 'Registry', 'Relay']) expect(names).not.toContain(internal);
  });
});
