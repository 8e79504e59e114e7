// The hub's command-line flags and serve's --hub flags: each mistake gets one clear line and
// exit 2, before anything starts.
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { agentHome } from './hub-processes.js';

describe('hub and serve --hub flags', () => {
  it.each([
    [['hub', '--store', 'postgres'], 'hub: --store is sqlite, memory or a postgres:// URL'],
    [['hub', '--store', 'memory', '--db', 'x.db'], 'hub: --db is for --store sqlite'],
    [['hub', '--store', 'postgres://hub@127.0.0.1:1/hubs', '--db', 'x.db'], 'hub: --db is for --store sqlite'],
    [
      ['hub', '--store', 'postgres://hub:hunter2@127.0.0.1:1/hubs'],
      'hub: --store postgres://hub@127.0.0.1:1/hubs holds a password, which a flag shows to anyone who lists processes; give it in PGPASSWORD, or give the whole URL in A2A_LITE_HUB_STORE',
    ],
    [
      ['hub', '--store', 'postgres://hub@127.0.0.1:1/hubs?password=hunter2'],
      'hub: --store postgres://hub@127.0.0.1:1/hubs holds a password, which a flag shows to anyone who lists processes; give it in PGPASSWORD, or give the whole URL in A2A_LITE_HUB_STORE',
    ],
    [['hub', '--cluster', 'nats://127.0.0.1:1'], 'hub: --cluster needs a registry that every instance shares: --store postgres://… (or A2A_LITE_HUB_STORE)'],
    [['hub', '--store', 'sqlite', '--cluster', 'nats://127.0.0.1:1'], 'hub: --cluster needs a registry that every instance shares: --store postgres://… (or A2A_LITE_HUB_STORE)'],
    [
      ['hub', '--store', 'postgres://hub@127.0.0.1:1/hubs', '--cluster', 'nats://hub:hunter2@127.0.0.1:1'],
      'hub: --cluster nats://127.0.0.1:1 holds a user, password or token, which a flag shows to anyone who lists processes; give the whole URL in A2A_LITE_CLUSTER',
    ],
    [['hub', '--store', 'postgres://hub@127.0.0.1:1/hubs', '--cluster', 'redis://127.0.0.1:1'], 'the cluster URL must start with nats:// or tls://, not redis://'],
    [['hub', '--cluster-prefix', 'hubs'], 'hub: --cluster-prefix is for --cluster nats://…'],
    [['hub', '--port', '70000'], 'hub: --port is a whole number from 0 to 65535'],
    [['hub', '--heartbeat', '0'], 'hub: --heartbeat is a whole number from 1 to 3600'],
    [['hub', '--token-env', 'HUB_UNSET_TOKEN'], 'hub: the environment variable HUB_UNSET_TOKEN is empty or not set'],
  ])('a2a-lite %j', (args, message) => {
    const result = cli(args, { home: tempHome() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`a2a-lite: USAGE: ${message}\n`);
  });

  it('takes the store and the cluster from the environment, and names a bad one without its password', () => {
    const env = { A2A_LITE_HUB_STORE: 'redis://hub:hunter2@127.0.0.1:1', A2A_LITE_CLUSTER: undefined };
    const refused = cli(['hub'], { home: tempHome(), env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('a2a-lite: USAGE: hub: --store is sqlite, memory or a postgres:// URL (A2A_LITE_HUB_STORE holds "redis://127.0.0.1:1")\n');
    const cluster = cli(['hub', '--store', 'memory'], { home: tempHome(), env: { A2A_LITE_CLUSTER: 'nats://hub:hunter2@127.0.0.1:1' } });
    expect(cluster.stderr).toBe('a2a-lite: USAGE: hub: --cluster needs a registry that every instance shares: --store postgres://… (or A2A_LITE_HUB_STORE)\n');
  });

  it('names a registry or a bus it cannot reach, without the password the environment gave', () => {
    const store = cli(['hub', '--json'], { home: tempHome(), env: { A2A_LITE_HUB_STORE: 'postgres://hub:hunter2@127.0.0.1:1/hubs' } });
    expect(store.code).toBe(7);
    expect(store.stderr).toContain('postgres://hub@127.0.0.1:1/hubs');
    expect(store.stdout + store.stderr).not.toContain('hunter2');
  });

  it.each([
    [['--port', 'none'], 'serve: --port none needs --hub URL, or no client could reach this agent'],
    [['--hub-id', 'x'], 'serve: --hub-token-env, --hub-id and --hub-shared need --hub URL'],
    [['--hub-shared'], 'serve: --hub-token-env, --hub-id and --hub-shared need --hub URL'],
    [['--hub', 'hub.example:7400'], 'serve: --hub is an http or https URL'],
    [['--hub', 'http://127.0.0.1:1,ftp://hub.example'], 'serve: --hub is an http or https URL'],
    [['--hub', 'http://127.0.0.1:1, not a url'], 'serve: --hub takes the URL of an a2a-lite hub (or several, comma-separated), e.g. http://hub.example:7400; "not a url" is not a URL'],
    [['--hub', 'http://127.0.0.1:1', '--hub-id', 'no/slash'], 'serve: the hub id "no/slash" is not 1 to 64 letters, digits, ".", "_" or "-"; give --hub-id'],
    [['--hub', 'http://127.0.0.1:1', '--hub-token-env', 'HUB_UNSET_TOKEN'], 'serve: the environment variable HUB_UNSET_TOKEN (--hub-token-env) is empty or not set'],
    [['--hub', 'http://127.0.0.1:1', '--host', '0.0.0.0'], 'serve: with --hub, --host needs --port N: an agent behind a hub listens on no port of its own unless asked'],
  ])('a2a-lite serve %j', (args, message) => {
    const result = cli(['serve', '--home', agentHome('flags'), '--store', 'memory', '--exec', 'true', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`a2a-lite: USAGE: ${message}\n`);
  });

  it('refuses a --hub for send that is not a URL', () => {
    const result = cli(['send', '--hub', 'not-a-url', '--skill', 'x', 'hi'], { home: tempHome() });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('a2a-lite: USAGE: send: --hub takes the URL of an a2a-lite hub\n');
  });
});
