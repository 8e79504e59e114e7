// The bus a cluster URL asks for: NATS for nats:// and tls:// (its client loaded only then), the
// in-process bus for `memory` or none (one process).

import { LiteError } from '../errors.js';
import type { Bus, BusOptions } from './bus.js';
import { MemoryBus } from './memory-bus.js';
import { shownUrl } from './nats-url.js';

/**
 * Opens the bus `url` names, with subjects under `options.prefix`.
 *
 * @example
 * const bus = await openBus('nats://127.0.0.1:4222', { prefix: 'a2a-lite.research' });
 */
export async function openBus(url: string | undefined, options: BusOptions): Promise<Bus> {
  if (url === undefined || url === 'memory') return new MemoryBus(options.prefix);
  if (/^(nats|tls):\/\//i.test(url)) {
    const { connectNatsBus } = await import('./nats-bus.js');
    return connectNatsBus(url, options);
  }
  throw new LiteError('USAGE', `the cluster bus is a nats:// URL (or "memory" for one process), not ${shownUrl(url)}`);
}
