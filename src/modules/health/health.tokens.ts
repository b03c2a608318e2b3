import type { ProviderFaults } from '../delivery/provider-faults.js';
import type { TransportRegistry } from '../delivery/transport.registry.js';

/**
 * What the health module is handed by the composition root (HealthModule.forRoot), rather than
 * looking for it: every Bull queue, and the dispatch of this process if it runs one.
 */

/** Every Bull queue (the dispatch queues by channel, then callbacks), for those that watch them all. */
export const EVERY_QUEUE = Symbol('EVERY_QUEUE');

/** The transports the dispatch workers of this process use; null where none run here. */
export const IN_PROCESS_DISPATCH = Symbol('IN_PROCESS_DISPATCH');

export interface InProcessDispatch {
  registry: TransportRegistry;
  faults: ProviderFaults;
}
