import type { ProviderFaults } from '../delivery/dispatch/provider-faults.registry.js';
import type { TransportRegistry } from '../delivery/dispatch/transport.registry.js';

/**
 * What the health probes are handed rather than look for: every Bull queue (every-queue.module.ts),
 * and the dispatch of this process if it runs one (HealthModule.forRoot).
 */

/** Every Bull queue (the dispatch queues by channel, then callbacks), for those that watch them all. */
export const EVERY_QUEUE = Symbol('EVERY_QUEUE');

/** The transports the dispatch workers of this process use; null where none run here. */
export const IN_PROCESS_DISPATCH = Symbol('IN_PROCESS_DISPATCH');

export interface InProcessDispatch {
  registry: TransportRegistry;
  faults: ProviderFaults;
}
