// The official SDK client against an a2a-lite server that requires a bearer token.
import type { BeforeArgs, CallInterceptor } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { asTask, jsonRpcClient, send, textOf } from './sdk-requests.js';

const TOKEN = ['sdk', '-token-', 'Hs72Kd91'].join('');
let server: Listening;

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
  return jsonRpcClient(server.url, { interceptors });
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
    const task = asTask(await send(client, 'hi'));
    expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: hi' });
  });

  it('refuses a client without the token, whose card reading still works', async () => {
    const client = await clientWith(undefined);
    await expect(send(client, 'no')).rejects.toThrow(/401/);
  });

  it('refuses a wrong token', async () => {
    const client = await clientWith('wrong');
    await expect(send(client, 'bad')).rejects.toThrow(/401/);
  });
});
