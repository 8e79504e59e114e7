// The official @a2a-js/sdk 1.0 client (JSON-RPC) against our server, over real HTTP.
import { describe, expect, it } from 'vitest';
import { sdkClientSuite, sdkSession } from './sdk-client-suite.js';
import { jsonRpcClient } from './sdk-requests.js';

const session = sdkSession((server) => jsonRpcClient(server.url));

describe('the @a2a-js/sdk 1.0 client against a2a-lite', () => {
  it('reads our agent card and speaks JSON-RPC 1.0', () => {
    expect(session.client.transport.protocolName).toBe('JSONRPC');
    expect(session.client.protocolVersion).toBe('1.0');
  });

  sdkClientSuite(session, { lists: true, subscribesThroughInput: true });
});
