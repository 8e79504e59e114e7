// Whether a command asks for traces or metrics: read on every start, so it imports nothing;
// only a yes loads observe-flags.ts and, through it, the OpenTelemetry SDK.

/** The commands that take `--otel` (and, serve and hub, `--metrics`). */
export const OBSERVED_COMMANDS: ReadonlySet<string> = new Set(['serve', 'hub', 'send', 'run']);

/** True when `args` or `env` ask `name` for traces or metrics. */
export function wantsTelemetry(name: string, args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (!OBSERVED_COMMANDS.has(name) || args.includes('--help') || args.includes('-h')) return false;
  return args.some((arg) => arg === '--otel' || arg === '--metrics' || arg.startsWith('--metrics=')) || otlpAsked(env);
}

/**
 * Whether the OTEL_* variables ask for OTLP traces: OTEL_TRACES_EXPORTER=otlp, or an OTLP
 * endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) unless
 * OTEL_TRACES_EXPORTER=none; never with OTEL_SDK_DISABLED=true.
 */
export function otlpAsked(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return exporter?.split(',').includes('otlp') === true || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) || Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
