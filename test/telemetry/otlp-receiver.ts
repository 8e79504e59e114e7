// A real OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it takes what the SDK's
// OTLP exporters post (JSON, as @opentelemetry/exporter-*-otlp-http send it) and keeps the
// spans, flattened, so that a test can check their tree.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind numbers). */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

export interface Receiver {
  url: string;
  spans: ReceivedSpan[];
  /** Metric names posted to /v1/metrics. */
  metricNames: Set<string>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

function valueOf(value: AnyValue): unknown {
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      if (request.url === '/v1/traces') {
        for (const rs of (body.resourceSpans ?? []) as { resource: { attributes: { key: string; value: AnyValue }[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[]) {
          const service = String(attributesOf(rs.resource.attributes)['service.name']);
          for (const ss of rs.scopeSpans) {
            for (const s of ss.spans) {
              spans.push({
                service,
                traceId: s.traceId as string,
                spanId: s.spanId as string,
                parentSpanId: (s.parentSpanId as string | undefined) || undefined,
                name: s.name as string,
                kind: s.kind as number,
                attributes: attributesOf(s.attributes as { key: string; value: AnyValue }[]),
                status: (s.status ?? {}) as { code?: number; message?: string },
              });
            }
          }
        }
      } else if (request.url === '/v1/metrics') {
        for (const rm of (body.resourceMetrics ?? []) as { scopeMetrics: { metrics: { name: string }[] }[] }[]) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) metricNames.add(m.name);
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The environment that sends a process's telemetry to `receiver`, batched briefly. */
export function otlpEnv(receiver: Receiver): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_METRIC_EXPORT_INTERVAL: '200' };
}
