// The Prometheus text parser the metrics tests read /metrics with ships no types of its own.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
