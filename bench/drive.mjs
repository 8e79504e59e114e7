// The loop both load generators run (load.mjs over HTTP, grpc-load.mjs over gRPC): `concurrency`
// callers each send again as soon as they are answered, for `seconds` after a `warmup`; the
// figures as one object: requests and their rate after the warm-up, latency percentiles, errors,
// and every answered request, the warm-up's too (what a server's CPU time over the whole run is
// divided by).
export async function drive(send, { concurrency, seconds, warmup }) {
  const warmEnd = performance.now() + warmup * 1000;
  const end = warmEnd + seconds * 1000;
  const latencies = [];
  let errors = 0;
  let answered = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const ok = await send().catch(() => false);
        const finished = performance.now();
        answered += 1;
        if (start < warmEnd) continue;
        if (!ok) errors += 1;
        latencies.push(finished - start);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, answered, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors };
}
