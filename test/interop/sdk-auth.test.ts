// The official SDK client against an a2a-lite server that requires a bearer token.
import { Role, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type BeforeArgs, type CallInterceptor } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/serve/node-http.js';

const TOKEN = ['sdk', '-token-', 'Hs72Kd91'].join('');
let server: Listening;

const message = (text: string): Message => ({
  messageId: `auth-${text}`,
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

function clientWith(token: string | undefined) {
  const interceptors: CallInterceptor[] =
    token === undefined
      ? []
      : [
          {
            async before(args: BeforeArgs) {
              args.options = { ...args.options, serviceParameters: { ...(args.options?.serviceParameters ?? {}), Authorization: `Bearer ${token}` } };
            },
            async after() {},
          },
        ];
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()], clientConfig: { interceptors } }),
  ).createFromUrl(server.url);
}

beforeAll(async () => {
  let url = '';
  const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
  server = await listen(createA2AHandler({ agent, baseUrl: () => url, auth: { bearerTokens: [TOKEN] } }));
  url = server.url;
});

afterAll(() => server.close());

describe('an auth-protected a2a-lite server and the official SDK client', () => {
  it('serves a client that sends the token', async () => {
    const client = await clientWith(TOKEN);
    const task = await client.sendMessage({ tenant: '', message: message('hi'), configuration: undefined, metadata: undefined });
    expect('messageId' in task ? undefined : task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: hi' });
  });

  it('refuses a client without the token, whose card reading still works', async () => {
    const client = await clientWith(undefined);
    await expect(client.sendMessage({ tenant: '', message: message('no'), configuration: undefined, metadata: undefined })).rejects.toThrow(/401/);
  });

  it('refuses a wrong token', async () => {
    const client = await clientWith('wrong');
    await expect(client.sendMessage({ tenant: '', message: message('bad'), configuration: undefined, metadata: undefined })).rejects.toThrow(/401/);
  });
});
