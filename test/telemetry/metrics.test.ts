// `serve --metrics` and `hub --metrics` as real processes: after real requests, the text at
// /metrics is read by a Prometheus text parser and holds the named metrics. And with no flag
// and no OTEL_* variable, no module of the OpenTelemetry SDK is ever loaded.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { BIN, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { BEHAVE, freePort, start, startAgent, startHub, until } from '../hub/hub-processes.js';

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string> }[];
}

async function scrape(url: string): Promise<Map<string, Family>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const families = parsePrometheusTextFormat(await response.text()) as Family[];
  return new Map(families.map((family) => [family.name, family]));
}

describe('metrics in the Prometheus text format', () => {
  it('serve --metrics PORT: requests by method, binding and outcome, latency, streams, task states', async () => {
    const port = await freePort();
    const home = tempHome('metrics-serve');
    expect((await cliAsync(['card', 'init', '--id', 'metered', '--name', 'Metered', '--skill', 'echo:Echo:Says it back'], { home })).code).toBe(0);
    const agent = await start(['serve', '--home', home, '--store', 'memory', '--host', '127.0.0.1', '--port', '0', '--exec', BEHAVE, '--metrics', String(port)], { A2A_LITE_HOME: home });
    const url = agent.info.url as string;
    const sent = await cliAsync(['send', url, 'echo counted'], { home: tempHome('metrics-client') });
    expect(sent.code, sent.stderr).toBe(0);
    const missing = await fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } }) });
    await missing.text();

    const families = await scrape(`http://127.0.0.1:${port}/metrics`);
    const requests = families.get('a2a_lite_requests_total') as Family;
    expect(requests.type).toBe('COUNTER');
    expect(requests.metrics).toEqual(expect.arrayContaining([
      expect.objectContaining({ labels: expect.objectContaining({ a2a_method_name: 'SendStreamingMessage', a2a_lite_binding: 'jsonrpc', outcome: 'ok' }) }),
      expect.objectContaining({ labels: expect.objectContaining({ a2a_method_name: 'GetTask', a2a_lite_binding: 'jsonrpc', outcome: 'error', error_type: '-32001' }) }),
    ]));
    expect(families.get('a2a_lite_request_duration')?.type).toBe('HISTOGRAM');
    expect(families.get('a2a_lite_streams_open')?.metrics[0]?.value).toBe('0');
    expect(families.get('a2a_lite_task_states_total')?.metrics).toEqual(expect.arrayContaining([expect.objectContaining({ labels: expect.objectContaining({ a2a_task_state: 'TASK_STATE_COMPLETED' }) })]));
    expect(families.get('a2a_lite_store_commit_duration')?.type).toBe('HISTOGRAM');
    // Only GET /metrics is served on the metrics port.
    expect((await fetch(`http://127.0.0.1:${port}/jsonrpc`)).status).toBe(404);
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  }, 60_000);

  it('hub --metrics HOST:PORT: relayed requests and the relay links open', async () => {
    const port = await freePort();
    const hub = await startHub(['--store', 'memory', '--metrics', `127.0.0.1:${port}`]);
    await startAgent(hub.url, 'linked');
    const families = await until(async () => {
      const read = await scrape(`http://127.0.0.1:${port}/metrics`);
      return read.get('a2a_lite_relay_links')?.metrics[0]?.value === '1' ? read : undefined;
    }, 10_000, 'the link counted');
    expect(families.get('a2a_lite_relay_links')?.type).toBe('GAUGE');
    const sent = await cliAsync(['send', `${hub.url}/agents/linked`, 'echo relayed'], { home: tempHome('metrics-hub-client') });
    expect(sent.code, sent.stderr).toBe(0);
    const after = await scrape(`http://127.0.0.1:${port}/metrics`);
    expect(after.get('a2a_lite_requests_total')?.metrics).toEqual(expect.arrayContaining([expect.objectContaining({ labels: expect.objectContaining({ a2a_lite_binding: 'hub', outcome: 'ok' }) })]));
  }, 60_000);

  it('refuses --metrics without a port, and on send', async () => {
    const bad = await cliAsync(['hub', '--metrics', 'nope'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--metrics takes PORT or HOST:PORT');
    const send = await cliAsync(['send', 'http://127.0.0.1:1', 'x', '--metrics', '9464'], {});
    expect(send.stderr).toContain('send: --metrics is for serve and hub');
  });

  it('loads no module of the OpenTelemetry SDK when nothing asks for telemetry', () => {
    const dir = tempHome('no-sdk');
    const hook = join(dir, 'hook.mjs');
    const log = join(dir, 'loaded.txt');
    // A resolve hook that notes every package module the process loads.
    writeFileSync(hook, `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(`import { appendFileSync } from 'node:fs'; export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes('/node_modules/')) appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }`)}));\n`);
    writeFileSync(log, '');
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
    const run = (args: string[]) => spawnSync(process.execPath, ['--import', hook, BIN, ...args], { env: { ...env, A2A_LITE_HOME: dir }, encoding: 'utf8' });
    expect(run(['send', 'http://127.0.0.1:1', 'hello']).status).not.toBe(0);
    const loaded = spawnSync('cat', [log], { encoding: 'utf8' }).stdout;
    expect(loaded).toContain('@opentelemetry/api');
    expect(loaded).not.toMatch(/@opentelemetry\/(?:sdk-|exporter-|resources|core|context-async-hooks|otlp-)/);
    // The same command asked for traces loads them.
    writeFileSync(log, '');
    run(['send', 'http://127.0.0.1:1', 'hello', '--otel']);
    expect(spawnSync('cat', [log], { encoding: 'utf8' }).stdout).toMatch(/@opentelemetry\/sdk-trace-node/);
  }, 30_000);
});
