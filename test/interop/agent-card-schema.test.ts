// The card `serve` publishes, fetched over real HTTP in every configuration that changes it: the
// card a 1.0 client gets, and the one a client that says no version gets, must pass the A2A 1.0
// AgentCard schema, whose objects are closed; the card a 0.3 client gets (A2A-Version 0.3, the
// older /.well-known/agent.json, or any request with cardCompat 0.3) must still hold what it reads.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler, type A2AHandlerOptions } from '../../src/a2a/server/handler.js';
import { LITE_CARD_EXTENSION } from '../../src/a2a/wire/agent-card.js';
import { IDEMPOTENCY_EXTENSION, RESUME_EXTENSION } from '../../src/a2a/wire/extensions.js';
import type { LiteCard } from '../../src/card/types.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { startPushSender, type PushSender } from '../../src/serve/push-sender.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { cli } from '../cli/run-cli.js';
import { startServe } from '../faults/serve-process.js';
import { jiajiaCard, mexicoCard } from '../fixtures/cards.js';
import { tempHome } from '../fixtures/home.js';

type Json = Record<string, unknown>;

const schema = JSON.parse(readFileSync(new URL('../fixtures/a2a-v1-agent-card.schema.json', import.meta.url), 'utf8')) as Json;
const validateV1 = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

/** What the schema says about `card`: an empty list when it passes. */
const schemaErrors = (card: unknown): string[] => (validateV1(card) ? [] : (validateV1.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`));

interface Setup {
  card?: LiteCard;
  auth?: A2AHandlerOptions['auth'];
  push?: boolean;
  extensions?: A2AHandlerOptions['extensions'];
  extendedCard?: A2AHandlerOptions['extendedCard'];
}

const running: { server: Listening; push?: PushSender }[] = [];
afterEach(async () => {
  for (const { server, push } of running.splice(0)) {
    await server.close();
    await push?.close();
  }
});

/**
 * Serves a handler set up as `setup` says on 127.0.0.1 and fetches its card as a 1.0 client, as
 * one that says no version, as a 0.3 client and at the older path.
 */
async function cardsOf(setup: Setup): Promise<{ v1: Json; unsaid: Json; hybrid: Json; legacyPath: Json; url: string }> {
  const store = new MemoryTaskStore();
  const agent = createAgent({ card: setup.card ?? jiajiaCard(), store, onTask: (task) => `echo: ${task.text}` });
  const push = setup.push ? await startPushSender({ agent, store }) : undefined;
  let url = '';
  const options: A2AHandlerOptions = { agent, baseUrl: () => url };
  if (setup.auth !== undefined) options.auth = setup.auth;
  if (setup.extensions !== undefined) options.extensions = setup.extensions;
  if (setup.extendedCard !== undefined) options.extendedCard = setup.extendedCard;
  if (push !== undefined) options.push = push;
  const server = await listen(createA2AHandler(options), { host: '127.0.0.1', port: 0 });
  running.push(push === undefined ? { server } : { server, push });
  url = server.url;
  const fetchCard = async (headers: Record<string, string>, path = '/.well-known/agent-card.json'): Promise<Json> => {
    const response = await fetch(`${url}${path}`, { headers });
    expect(response.status).toBe(200);
    return (await response.json()) as Json;
  };
  return { v1: await fetchCard({ 'A2A-Version': '1.0' }), unsaid: await fetchCard({}), hybrid: await fetchCard({ 'A2A-Version': '0.3' }), legacyPath: await fetchCard({}, '/.well-known/agent.json'), url };
}

const skillsWithEveryMode = mexicoCard({
  description: 'Sends e-mail, keeps a calendar, and cuts clips.',
  skills: [
    { id: 'clips', name: 'Clips', description: 'Cuts video', inputModes: ['video', 'audio', 'image'], outputModes: ['video', 'file'], tags: ['video', 'edit'] },
    { id: 'plain', name: 'Plain', description: 'No modes given' },
    { id: 'untagged', name: 'Untagged', description: '', inputModes: [], outputModes: ['text'], tags: [] },
  ],
});
const { channels: _channels, ...withoutChannels } = mexicoCard();

const SETUPS: [string, Setup][] = [
  ['no auth, push off', {}],
  ['a bearer token', { auth: { bearerTokens: ['token-for-the-card-test'] } }],
  ['an API key in its own header', { auth: { apiKeys: ['key-for-the-card-test'], apiKeyHeader: 'X-Card-Key' } }],
  ['a bearer token and an API key', { auth: { bearerTokens: ['token-for-the-card-test'], apiKeys: ['key-for-the-card-test'] } }],
  ['push on', { push: true }],
  ['skills with every mode, tags and none', { card: skillsWithEveryMode }],
  ['no skills at all', { card: mexicoCard({ skills: [] }) }],
  ['a card with channels and a version', { card: jiajiaCard() }],
  ['a card with neither channels nor a version', { card: withoutChannels }],
  ['extra extensions, required or not, with params or without', { extensions: [{ uri: 'https://example.org/ext/a/v1', description: 'A' }, { uri: 'https://example.org/ext/b/v1', description: 'B', required: true, params: { depth: 2, tags: ['x'] } }] }],
  ['an extended card', { auth: { bearerTokens: ['t'] }, extendedCard: { skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger' }] } }],
  ['everything at once', { card: skillsWithEveryMode, auth: { bearerTokens: ['t'], apiKeys: ['k'] }, push: true, extensions: [{ uri: 'https://example.org/ext/c/v1', description: 'C', params: {} }], extendedCard: { description: 'More' } }],
];

describe('the card served to a 1.0 client passes the A2A 1.0 AgentCard schema', () => {
  it('the schema is closed: it refuses a field 1.0 does not have, a 0.3 scheme and a missing required field', async () => {
    const { v1, hybrid } = await cardsOf({ auth: { bearerTokens: ['t'] } });
    expect(schemaErrors(v1)).toEqual([]);
    expect(schemaErrors({ ...v1, url: 'http://127.0.0.1/jsonrpc' })).toEqual([expect.stringContaining('must NOT have additional properties')]);
    expect(schemaErrors({ ...v1, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } })).not.toEqual([]);
    const { skills: _skills, ...withoutSkills } = v1;
    expect(schemaErrors(withoutSkills)).toEqual([expect.stringContaining("must have required property 'skills'")]);
    expect(schemaErrors(hybrid)).not.toEqual([]);
  });

  it('the schema takes every optional field 1.0 has', async () => {
    const { v1 } = await cardsOf({});
    const oauth = { flows: { authorizationCode: { authorizationUrl: 'https://a.example/auth', tokenUrl: 'https://a.example/token', scopes: { read: 'Read' }, pkceRequired: true } } };
    const full = {
      ...v1,
      provider: { url: 'https://a.example', organization: 'A' },
      documentationUrl: 'https://a.example/docs',
      iconUrl: 'https://a.example/icon.png',
      supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 't1' }],
      securitySchemes: {
        oauth: { oauth2SecurityScheme: { ...oauth, description: 'OAuth', oauth2MetadataUrl: 'https://a.example/.well-known/oauth' } },
        oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://a.example/.well-known/openid-configuration' } },
        mtls: { mtlsSecurityScheme: { description: 'client certificates' } },
        device: { oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://a.example/device', tokenUrl: 'https://a.example/token', scopes: {} } } } },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['read'] } } }],
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], examples: ['e'], inputModes: ['text/plain'], outputModes: ['application/json'], securityRequirements: [{ schemes: { mtls: { list: [] } } }] }],
      signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln', header: { kid: 'k1' } }],
    };
    expect(schemaErrors(full)).toEqual([]);
    expect(schemaErrors({ ...full, securitySchemes: { two: { mtlsSecurityScheme: {}, httpAuthSecurityScheme: { scheme: 'Bearer' } } } })).toEqual([expect.stringContaining('must NOT have more than 1 properties')]);
  });

  it.each(SETUPS)('with %s', async (_name, setup) => {
    const { v1 } = await cardsOf(setup);
    expect(schemaErrors(v1)).toEqual([]);
  });
});

describe('the card served to a client that says no version passes the same schema', () => {
  it.each(SETUPS)('with %s', async (_name, setup) => {
    const { v1, unsaid } = await cardsOf(setup);
    expect(schemaErrors(unsaid)).toEqual([]);
    expect(unsaid).toEqual(v1);
  });

  it('declares what each setup turns on, in 1.0 form only', async () => {
    const { v1, url } = await cardsOf(SETUPS.at(-1)![1]);
    expect(v1.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    });
    expect(v1.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }]);
    expect(v1.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect((v1.capabilities as { extensions: Json[] }).extensions).toEqual([
      { uri: LITE_CARD_EXTENSION, description: expect.any(String), required: false, params: { protocol: 'a2a-lite/1.0', id: 'mexico', framework: 'openclaw', channels: ['discord:mexico'] } },
      { uri: RESUME_EXTENSION, description: expect.any(String), required: false, params: { header: 'Last-Event-ID', param: 'lastEventId' } },
      { uri: IDEMPOTENCY_EXTENSION, description: expect.any(String), required: false, params: expect.objectContaining({ header: 'Idempotency-Key' }) },
      { uri: 'https://example.org/ext/c/v1', description: 'C', required: false, params: {} },
    ]);
    expect(v1.defaultInputModes).toEqual(['video/*', 'audio/*', 'image/*', 'text/plain']);
    expect(v1.supportedInterfaces).toEqual([
      { url: `${url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });
});

describe('a2a-lite serve itself', () => {
  it('gives a 1.0 client and one that says no version a card the schema accepts, and a 0.3 client the 0.3 fields, with push and both kinds of auth on', async () => {
    const home = tempHome('card-schema');
    const made = cli(['card', 'init', '--id', 'carded', '--name', 'Carded', '--channel', 'discord:carded', '--skill', JSON.stringify({ id: 'see', name: 'See', description: 'Looks at images', inputModes: ['image'], outputModes: ['text', 'file'] })], { home });
    expect(made.code, made.stderr).toBe(0);
    process.env.A2A_CARD_TEST_BEARER = 'bearer-for-the-card-test';
    process.env.A2A_CARD_TEST_KEY = 'key-for-the-card-test';
    const server = await startServe(home, 'true', ['--store', 'memory', '--push', '--auth-bearer-env', 'A2A_CARD_TEST_BEARER', '--auth-api-key-env', 'A2A_CARD_TEST_KEY']);
    const cardAt = async (headers: Record<string, string>) => (await (await fetch(`${server.info.url}/.well-known/agent-card.json`, { headers })).json()) as Json;
    const v1 = await cardAt({ 'A2A-Version': '1.0' });
    expect(schemaErrors(v1)).toEqual([]);
    expect(schemaErrors(await cardAt({}))).toEqual([]);
    expect(Object.keys(v1.securitySchemes as Json)).toEqual(['bearer', 'apiKey']);
    expect(v1.capabilities).toMatchObject({ pushNotifications: true });
    expect(await cardAt({ 'A2A-Version': '0.3' })).toMatchObject({ url: `${server.info.url}/jsonrpc`, protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', security: [{ bearer: [] }, { apiKey: [] }] });
  });
});

describe('the card served to a 0.3 client still holds what it reads', () => {
  it.each(SETUPS)('with %s', async (_name, setup) => {
    const { v1, hybrid, legacyPath, url } = await cardsOf(setup);
    expect(legacyPath).toEqual(hybrid);
    expect(hybrid).toMatchObject({ url: `${url}/jsonrpc`, protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: setup.extendedCard !== undefined });
    // Everything a 1.0 client reads is there too, the schemes aside, which carry both forms.
    const { securitySchemes, ...rest } = v1;
    expect(hybrid).toMatchObject(rest);
    for (const [name, scheme] of Object.entries(securitySchemes as Record<string, Json>)) expect((hybrid.securitySchemes as Record<string, Json>)[name]).toMatchObject(scheme);
  });

  it('declares each scheme in 0.3 form beside the 1.0 one', async () => {
    const { hybrid } = await cardsOf({ auth: { bearerTokens: ['t'], apiKeys: ['k'], apiKeyHeader: 'X-Card-Key' } });
    expect(hybrid.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' }, type: 'http', scheme: 'bearer' },
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Card-Key' }, type: 'apiKey', in: 'header', name: 'X-Card-Key' },
    });
    expect(hybrid.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
  });
});
