// Traces and metrics for serve, hub, send and run, when asked for: `--otel` or the standard
// OTEL_* variables (an OTLP endpoint, OTEL_TRACES_EXPORTER=otlp) turn on traces (and, for serve
// and hub, metrics) over OTLP; `--metrics [HOST:]PORT` serves Prometheus text at /metrics on a
// port of its own. Otherwise neither this file nor the SDK is loaded (observe-ask.ts decides).

import { LiteError } from '../errors.js';
import type { HttpResponse } from '../net/http-types.js';
import { listen, type Listening } from '../net/node-http.js';
import { traceContextOf } from '../protocol/trace-context.js';
import { parentContext } from '../telemetry/carrier.js';
import { setProcessParent } from '../telemetry/outer-parent.js';
import type { Telemetry } from '../telemetry/sdk.js';
import type { Context } from './context.js';
import { otlpAsked } from './observe-ask.js';

const SERVERS = new Set(['serve', 'hub']);

/** The help for the flags `name` takes. */
export function observeHelp(name: string): string {
  const otel = `  --otel                  send traces${SERVERS.has(name) ? ' and metrics' : ''} over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT
                          (default http://localhost:4318); also on when that variable or
                          OTEL_TRACES_EXPORTER=otlp is set; see docs/observability.md`;
  if (!SERVERS.has(name)) return otel;
  return `${otel}
  --metrics [HOST:]PORT   Prometheus text at http://HOST:PORT/metrics, on a port of its own
                          (HOST defaults to 127.0.0.1)`;
}

export interface Observing {
  /** The command's arguments without `--otel` and `--metrics`. */
  args: string[];
  /**
   * Runs the command: inside the trace of TRACEPARENT when the environment hands one down (the
   * parent of its outermost spans while it runs, telemetry/outer-parent.ts).
   */
  run<T>(command: () => Promise<T>): Promise<T>;
  /** Sends what is batched and closes the metrics port. */
  close(): Promise<void>;
}

/** Reads `--otel` and `--metrics` out of `args`, and starts what they and the environment ask for. */
export async function startObserving(name: string, args: readonly string[], ctx: Context, version: string): Promise<Observing> {
  const rest: string[] = [];
  let otel = false;
  let metricsAt: string | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--otel') otel = true;
    else if (arg === '--metrics') metricsAt = args[++i] ?? '';
    else if (arg.startsWith('--metrics=')) metricsAt = arg.slice('--metrics='.length);
    else rest.push(arg);
  }
  if (metricsAt !== undefined && !SERVERS.has(name)) throw new LiteError('USAGE', `${name}: --metrics is for serve and hub`);
  const where = metricsAt === undefined ? undefined : metricsAddress(name, metricsAt);
  const traces = otel || otlpAsked(ctx.env);
  const otlpMetrics = traces && SERVERS.has(name) && ctx.env.OTEL_METRICS_EXPORTER?.trim().toLowerCase() !== 'none';
  const { startTelemetry } = await import('../telemetry/sdk.js');
  const telemetry = await startTelemetry({ traces, otlpMetrics, prometheus: where !== undefined, serviceName: `a2a-lite-${name}`, resource: { 'service.version': version } });
  const server = where === undefined ? undefined : await metricsServer(telemetry, where);
  if (server !== undefined) ctx.stderr.write(`a2a-lite ${name}: metrics at ${server.url}/metrics\n`);
  const parent = traces ? traceContextOf(ctx.env.TRACEPARENT, ctx.env.TRACESTATE) : undefined;
  return {
    args: rest,
    async run(command) {
      if (parent === undefined) return command();
      setProcessParent(parentContext(parent));
      try {
        return await command();
      } finally {
        setProcessParent(undefined);
      }
    },
    async close() {
      if (server !== undefined) await new Promise<void>((resolve) => server.server.close(() => resolve()));
      server?.server.closeAllConnections();
      await telemetry.shutdown();
    },
  };
}

/** `PORT` or `HOST:PORT` (`[::1]:PORT` for IPv6). */
function metricsAddress(name: string, text: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) throw new LiteError('USAGE', `${name}: --metrics takes PORT or HOST:PORT, not ${JSON.stringify(text.slice(0, 80))}`);
  return { host: (match[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

/** The metrics port: GET /metrics answers the Prometheus text; nothing else is served there. */
function metricsServer(telemetry: Telemetry, where: { host: string; port: number }): Promise<Listening> {
  return listen(
    async (request): Promise<HttpResponse> => {
      if (request.path !== '/metrics') return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found: metrics are at /metrics\n' };
      if (request.method !== 'GET' && request.method !== 'HEAD') return { status: 405, headers: { allow: 'GET', 'content-type': 'text/plain' }, body: 'use GET\n' };
      return { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: await telemetry.prometheusText() };
    },
    { ...where, maxBodyBytes: 1024 },
  );
}
