// Two (or more) relays measured at once: each side's hub and agent stay up for the whole run,
// all on the same core, and each round loads every side at the same moment, each with a load
// generator of its own on the other core. The machine's speed changes from second to second
// (another tenant, the CPU's clock); loaded at once, the sides meet the same changes, and the
// ratio of their figures within a round holds where figures measured one after the other swing
// by half. Each side's CPU time per request is its own processes', counted by the kernel.
import { cpuMs, runLoad, startBenchServer } from './pin.mjs';

export const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * Starts a hub (`servers/hub.mjs` with `hubArgs`) and one agent dialled in to it, both with
 * `env` added (A2A_LITE_DIST picks a build), the hub on `hubCore` ('free': unpinned), the
 * agent on core 0; what `pairedRounds` loads.
 */
export async function startRelay(pin, here, { hubArgs = [], hubCore = 0, env = {} } = {}) {
  const hub = await startBenchServer(pin && hubCore !== 'free', here('./servers/hub.mjs'), hubArgs, hubCore === 'free' ? 0 : hubCore, env);
  const agent = await startBenchServer(pin, here('./servers/hub-agents.mjs'), [hub.url, '1'], 0, env).catch((error) => {
    hub.stop();
    throw error;
  });
  return { hub, agent, url: `${hub.url}/agents/bench-0/jsonrpc`, stop: () => (agent.stop(), hub.stop()) };
}

/**
 * `rounds` rounds, each loading every relay of `sides` at once with `connections` for
 * `seconds`: per side and round, req/s, errors, and the hub's and the agent's CPU time per
 * request (µs).
 */
export async function pairedRounds(pin, sides, { connections, seconds, rounds }) {
  const rows = sides.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    const before = sides.map((side) => [cpuMs(side.hub.pid), cpuMs(side.agent.pid)]);
    const loads = await Promise.all(sides.map((side) => runLoad(pin, side.url, connections, seconds)));
    sides.forEach((side, i) => {
      const answered = loads[i].answered;
      const perRequest = (pid, was) => ((cpuMs(pid) - was) * 1000) / answered;
      rows[i].push({ ...loads[i], hubUs: perRequest(side.hub.pid, before[i][0]), agentUs: perRequest(side.agent.pid, before[i][1]) });
    });
  }
  return rows;
}

/** Round by round, `key` of `rows` over `baseRows` (and their median). */
export function ratiosOf(rows, baseRows, key) {
  const list = rows.map((row, i) => row[key] / baseRows[i][key]);
  return { median: median(list), rounds: list };
}
