// An agent whose card marks an extension required (§3.3.4, §4.6.3), over real HTTP: the official
// SDK client is refused with ExtensionSupportRequiredError until it activates the extension, over
// JSON-RPC 1.0, HTTP+JSON and JSON-RPC 0.3; the card stays readable without it.
import type { AgentCard } from '@a2a-js/sdk';
import { Client, ClientFactory, DefaultAgentCardResolver, RestTransportFactory, ServiceParameters, withA2AExtensions } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { asTask, jsonRpcClient, sendRequest, textOf, userMessage } from './sdk-requests.js';

const SIGNED = 'https://example.com/extensions/signed-messages/v1';
const activated = { serviceParameters: ServiceParameters.create(withA2AExtensions(SIGNED)) };
const otherVersion = { serviceParameters: ServiceParameters.create(withA2AExtensions('https://example.com/extensions/signed-messages/v2')) };

let server: Listening;

beforeAll(async () => {
  let url = '';
  const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
  const extensions = [{ uri: SIGNED, description: 'Every message is signed by its author', required: true }];
  server = await listen(createA2AHandler({ agent, baseUrl: () => url, extensions }));
  url = server.url;
});

afterAll(() => server.close());

/** What the SDK makes of our refusal, on every transport. */
const refusal = { name: 'ExtensionSupportRequiredError', message: expect.stringContaining(SIGNED) };

/** Refused, then served once the extension is active, on whichever transport `client` speaks. */
async function refusedUntilActivated(client: Client): Promise<void> {
  await expect(client.sendMessage(sendRequest(userMessage('unsigned')))).rejects.toMatchObject(refusal);
  const task = asTask(await client.sendMessage(sendRequest(userMessage('signed')), activated));
  expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: signed' });
  await expect(client.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toMatchObject(refusal);
  expect((await client.getTask({ tenant: '', id: task.id, historyLength: undefined }, activated)).id).toBe(task.id);
}

describe('an extension the card marks required, and the official SDK client', () => {
  it('is declared required in the card, which a client reads without activating it', async () => {
    const card = await new DefaultAgentCardResolver().resolve(server.url);
    expect(card.capabilities?.extensions).toContainEqual(expect.objectContaining({ uri: SIGNED, required: true }));
  });

  it('refuses every call over JSON-RPC 1.0 until the client activates it, and not for another version of it', async () => {
    const client = await jsonRpcClient(server.url);
    await refusedUntilActivated(client);
    await expect(client.sendMessage(sendRequest(userMessage('signed with v2')), otherVersion)).rejects.toMatchObject(refusal);
  });

  it('refuses every call over HTTP+JSON until the client activates it', async () => {
    const client = await new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(server.url);
    expect(client.transport.protocolName).toBe('HTTP+JSON');
    await refusedUntilActivated(client);
    await expect(client.sendMessage(sendRequest(userMessage('unsigned')))).rejects.toMatchObject({ statusCode: 400 });
  });

  it('refuses every call over JSON-RPC 0.3 until the client activates it (X-A2A-Extensions)', async () => {
    const rawCard = (await (await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as { url: string };
    const card = await new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).resolve(server.url);
    const client = new Client(new LegacyJsonRpcTransport({ endpoint: rawCard.url }), card as AgentCard);
    expect(client.protocolVersion).toBe('0.3');
    await refusedUntilActivated(client);
  });
});
