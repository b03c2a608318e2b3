import { Module } from '@nestjs/common';
import { WorkerModule } from '../../app/worker.module.js';
import { ProviderFaults } from '../delivery/provider-faults.js';
import { TransportRegistry } from '../delivery/transport.registry.js';

/** The transports the dispatch workers of this process use; null where none run here. */
export const IN_PROCESS_DISPATCH = Symbol('IN_PROCESS_DISPATCH');

export interface InProcessDispatch {
  registry: TransportRegistry;
  faults: ProviderFaults;
}

/** For an API that runs the dispatch workers itself (RUN_WORKERS=true). */
@Module({
  imports: [WorkerModule],
  providers: [
    {
      provide: IN_PROCESS_DISPATCH,
      inject: [TransportRegistry, ProviderFaults],
      useFactory: (registry: TransportRegistry, faults: ProviderFaults): InProcessDispatch => ({
        registry,
        faults,
      }),
    },
  ],
  exports: [IN_PROCESS_DISPATCH],
})
export class WorkersInProcessModule {}

/** For an API-only process: the health probes reach the providers on their own. */
@Module({
  providers: [{ provide: IN_PROCESS_DISPATCH, useValue: null }],
  exports: [IN_PROCESS_DISPATCH],
})
export class NoWorkersInProcessModule {}
