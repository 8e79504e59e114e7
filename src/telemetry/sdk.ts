// Loads the OpenTelemetry SDK, only when asked for (cli/observe-flags.ts imports this file with
// import(), and this file imports the SDK packages the same way): traces through a batched OTLP
// exporter, metrics for Prometheus text and/or OTLP. The OTLP exporters read the standard
// OTEL_EXPORTER_OTLP_* variables themselves; the batch processor reads OTEL_BSP_*. The context
// manager is sync-context.ts's, which needs no async hooks.

import { metrics, type Attributes } from '@opentelemetry/api';
import { resetMetrics } from './metrics.js';
import { switchTelemetry } from './switch.js';
import { SyncContextManager } from './sync-context.js';

export interface TelemetryOptions {
  /** Export spans over OTLP. */
  traces: boolean;
  /** Export metrics over OTLP (every OTEL_METRIC_EXPORT_INTERVAL ms, 60 s by default). */
  otlpMetrics: boolean;
  /** Keep metrics for the Prometheus text of `prometheusText`. */
  prometheus: boolean;
  /** `service.name` when OTEL_SERVICE_NAME does not give one. */
  serviceName: string;
  /** Resource attributes of this process besides the service's name (`service.version`, …). */
  resource?: Attributes;
}

export interface Telemetry {
  /** The metrics now, in the Prometheus text format (empty without `prometheus`). */
  prometheusText(): Promise<string>;
  /** Sends what is batched and stops; call once, at exit. */
  shutdown(): Promise<void>;
}

/** Starts the SDK as `options` ask and registers it with @opentelemetry/api. */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const resources = await import('@opentelemetry/resources');
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const resource = resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.name': options.serviceName, ...options.resource })).merge(detected);
  const stops: (() => Promise<void>)[] = [];
  if (options.traces) {
    const [node, core, otlp] = await Promise.all([import('@opentelemetry/sdk-trace-node'), import('@opentelemetry/core'), import('@opentelemetry/exporter-trace-otlp-http')]);
    const provider = new node.NodeTracerProvider({ resource, spanProcessors: [new node.BatchSpanProcessor(new otlp.OTLPTraceExporter())] });
    // Not the SDK's AsyncLocalStorage manager: on Node 20 it turns on promise hooks for every
    // promise of the process. Parents are passed instead (spans.ts). Where an embedding
    // application registered a manager first, its own stays, and that is as right.
    provider.register({ propagator: new core.W3CTraceContextPropagator(), contextManager: new SyncContextManager() });
    switchTelemetry({ traces: true });
    stops.push(() => provider.shutdown());
  }
  let prometheus: { collect(): Promise<unknown>; text(collected: unknown): string } | undefined;
  if (options.prometheus || options.otlpMetrics) {
    const sdk = await import('@opentelemetry/sdk-metrics');
    const readers: InstanceType<typeof sdk.MetricReader>[] = [];
    if (options.prometheus) {
      const exporter = await import('@opentelemetry/exporter-prometheus');
      const reader = new exporter.PrometheusExporter({ preventServerStart: true });
      const serializer = new exporter.PrometheusSerializer();
      readers.push(reader);
      prometheus = {
        collect: () => reader.collect(),
        text: (collected) => serializer.serialize((collected as Awaited<ReturnType<typeof reader.collect>>).resourceMetrics),
      };
    }
    if (options.otlpMetrics) {
      const otlp = await import('@opentelemetry/exporter-metrics-otlp-http');
      readers.push(new sdk.PeriodicExportingMetricReader({ exporter: new otlp.OTLPMetricExporter() }));
    }
    const provider = new sdk.MeterProvider({ resource, readers });
    metrics.setGlobalMeterProvider(provider);
    resetMetrics();
    switchTelemetry({ metrics: true });
    stops.push(() => provider.shutdown());
  }
  return {
    async prometheusText() {
      return prometheus === undefined ? '' : prometheus.text(await prometheus.collect());
    },
    async shutdown() {
      switchTelemetry({ traces: false, metrics: false });
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}
