// The plugin's tools over HTTPS: an agent whose certificate comes from the operator's own
// authority is discovered once the plugin's config names that authority (tlsCa), and refused,
// saying who issued its certificate, by a plugin whose config does not.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { listen } from '../../src/net/node-http.js';
import { readTlsCredentials, trustAuthorities } from '../../src/net/tls.js';
import { readConfig } from '../../src/openclaw/config.js';
import { register } from '../../src/openclaw/plugin.js';
import { createAgent } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { tempHome } from '../fixtures/home.js';
import { certificateFolder, makeAuthority, makeServerCertificate, OPENSSL } from '../fixtures/tls.js';
import { needsTool } from '../needs-tool.js';
import { call, recordingHost } from './host-recorder.js';

const noOpenssl = needsTool('the plugin over HTTPS', OPENSSL, 'no openssl to make certificates with');
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  trustAuthorities([]);
  for (const close of closing.splice(0)) await close();
});

describe.skipIf(noOpenssl)('the plugin over HTTPS', () => {
  const folder = certificateFolder();
  const authority = makeAuthority(folder, 'gateway operator CA');
  const files = makeServerCertificate(folder, authority, 'agent-host');

  async function httpsAgent(): Promise<string> {
    let base = '';
    const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
    const server = await listen(createA2AHandler({ agent, baseUrl: () => base }), { tls: readTlsCredentials(files.cert, files.key) });
    base = server.url;
    closing.push(() => server.close());
    return server.url;
  }

  const discover = async (config: Record<string, unknown>, url: string) => {
    const workspace = tempHome('workspace');
    const host = recordingHost({ allowPrivateNetworks: true, ...config }, workspace);
    register(host.api);
    return call(host.tools({ workspaceDir: workspace, agentId: 'main' }), 'a2a_lite_discover', { url });
  };

  it('discovers an agent whose authority the config trusts, and refuses it otherwise, naming the issuer', async () => {
    const url = await httpsAgent();
    const refused = await discover({}, url);
    expect(refused.text).toContain('issued by CN=gateway operator CA');
    const found = await discover({ tlsCa: [authority.cert] }, url);
    expect(found.text).toContain(jiajiaCard().agent.name);
  });

  it('takes only absolute paths of certificate files', () => {
    expect(() => readConfig({ tlsCa: ['relative/ca.pem'] })).toThrow(/tlsCa is a list of at most 20 absolute paths/);
    expect(() => readConfig({ tlsCa: '/etc/ca.pem' })).toThrow(/tlsCa is a list/);
    const host = recordingHost({ tlsCa: [files.key] }, tempHome('workspace'));
    expect(() => register(host.api)).toThrow(/holds no certificate/);
  });
});
