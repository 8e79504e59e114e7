// serve's --store and --cluster flags: each mistake gets one clear line and exit 2 before
// anything opens, and no password given on the command line is ever printed back.
import { describe, expect, it } from 'vitest';
import { agentHome } from '../hub/hub-processes.js';
import { cli } from './run-cli.js';

const serve = (args: string[], env: Record<string, string> = {}) => cli(['serve', '--home', agentHome('store-flags'), '--exec', 'true', '--port', '0', ...args], { env });

describe('serve --store and --cluster', () => {
  it.each([
    [['--store', 'mysql://db/x'], 'serve: --store is sqlite, memory or a postgres:// URL'],
    [['--store', 'sqlite', '--cluster', 'nats://127.0.0.1:4222'], 'serve: --cluster, --replica, --cluster-prefix and --replica-lease need a shared store: --store postgres://…'],
    [['--replica', 'r1'], 'serve: --cluster, --replica, --cluster-prefix and --replica-lease need a shared store: --store postgres://…'],
    [['--store', 'postgres://postgres@127.0.0.1:1/x', '--cluster', 'redis://127.0.0.1'], 'serve: --cluster is a nats:// URL'],
    [['--store', 'postgres://postgres@127.0.0.1:1/x', '--replica', 'no spaces'], 'serve: --replica is 1 to 128 letters, digits, ".", "_", ":" or "-"'],
    [['--store', 'postgres://postgres@127.0.0.1:1/x', '--replica-lease', '0'], 'serve: --replica-lease is a whole number of seconds from 1 to 3600'],
  ])('a2a-lite serve %j', (args, message) => {
    const result = serve(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`a2a-lite: USAGE: ${message}\n`);
  });

  it('refuses a password on the command line without printing it', () => {
    const result = serve(['--store', 'postgres://agent:hunter2-secret@127.0.0.1:1/agents']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PGPASSWORD');
    expect(result.stderr + result.stdout).not.toContain('hunter2-secret');
    const cluster = serve(['--store', 'postgres://agent@127.0.0.1:1/agents', '--cluster', 'nats://bus:s3cret-token@127.0.0.1:4222']);
    expect(cluster.code).toBe(2);
    expect(cluster.stderr).toContain('A2A_LITE_CLUSTER');
    expect(cluster.stderr + cluster.stdout).not.toContain('s3cret-token');
  });

  it('says a database that does not answer is unreachable, showing its URL without the password from the environment', () => {
    const result = serve([], { A2A_LITE_STORE: 'postgres://agent:env-secret-77@127.0.0.1:1/agents' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('postgres://agent@127.0.0.1:1/agents');
    expect(result.stderr + result.stdout).not.toContain('env-secret-77');
  });
});
