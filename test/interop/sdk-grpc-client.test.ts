// The official @a2a-js/sdk 1.0 client over gRPC against our server: the card declares the GRPC
// interface, the SDK dials it with @grpc/grpc-js and runs every shared scenario over it.
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { describe, expect, it } from 'vitest';
import { sdkClientSuite, sdkSession } from './sdk-client-suite.js';
import { asTask, send, sendRequest, textOf, userMessage } from './sdk-requests.js';

// Only the gRPC factory: createFrom would merge in the default JSON-RPC one, which the card prefers.
const session = sdkSession((server) => new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(server.url), { grpc: true });

describe('the @a2a-js/sdk 1.0 client over gRPC against a2a-lite', () => {
  it('finds the GRPC interface in our card, at the gRPC port', async () => {
    expect(session.client.transport.protocolName).toBe('GRPC');
    expect(session.client.protocolVersion).toBe('1.0');
    const card = (await (await fetch(`${session.server.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).json()) as { supportedInterfaces: unknown[] };
    expect(card.supportedInterfaces).toContainEqual({ url: session.server.grpc!.target, protocolBinding: 'GRPC', protocolVersion: '1.0' });
    expect(textOf(asTask(await send(session.client, 'over grpc')))).toEqual({ $case: 'text', value: 'echo: over grpc' });
  });

  it('keeps to JSON-RPC when the client may use both, and takes gRPC when told to prefer it', async () => {
    const both = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory()] })).createFromUrl(session.server.url);
    expect(both.transport.protocolName).toBe('JSONRPC');
    const preferring = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory()], preferredTransports: ['GRPC'] })).createFromUrl(session.server.url);
    expect(preferring.transport.protocolName).toBe('GRPC');
    expect(textOf(asTask(await preferring.sendMessage(sendRequest(userMessage('preferred')))))).toEqual({ $case: 'text', value: 'echo: preferred' });
  });

  sdkClientSuite(session, { lists: true, subscribesThroughInput: true });
});
