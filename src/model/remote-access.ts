// What a client must know to call a remote A2A agent: its interfaces and the credentials it
// wants. Read from its card by the client, kept beside its lite card in the known-agents cache.

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
export type WireVersion = '1.0' | '0.3';

/** One way to reach the agent that a2a-lite can speak. */
export interface RemoteInterface {
  url: string;
  binding: Binding;
  version: WireVersion;
  /** The tenant a 1.0 interface names: every request to it carries it. */
  tenant?: string;
}

/** What a client must know to call an agent, kept beside its lite card in the cache. */
export interface RemoteAccess {
  /** Where the card was read. */
  cardUrl: string;
  /** In the order a2a-lite prefers them: 1.0 JSON-RPC, 1.0 HTTP+JSON, 1.0 gRPC, 0.3 JSON-RPC. */
  interfaces: RemoteInterface[];
  streaming: boolean;
  /** The credentials the agent declares it wants (names of schemes, never values). */
  security: { bearer: boolean; apiKey?: { name: string; in: 'header' | 'query' | 'cookie' }; other: string[] };
}
